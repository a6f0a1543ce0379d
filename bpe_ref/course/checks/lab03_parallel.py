"""Graders of lab 03, parallel pretokenization: cut a file at special tokens, count each chunk in a
worker process (map), add the counts up (reduce), and get exactly the serial count.

Theory: ``theory/03-parallel-pretokenization.md``. Reference: :mod:`bpe_ref.train.step03_parallel`.
Files are :class:`~.core.CorpusFile` arguments: written, for each call, where the learner's code
can read but not change them, and passed as a path.

Measured from outside the learner's process: task 1 reads in buffers, task 2 its own range only; task 4's workers
are processes, as many as asked (on a machine of 8 cores), started by the asked start method, over the asked chunks
cut at every special token, all ended when the call returns, none with one worker; its calling thread reads a few
buffers only, and each worker reads its chunks, none the whole file (what each read as it ended, read by the keeper).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable

from hypothesis import strategies as st

from ...corpus import read_corpus
from ...data_files import TINYSTORIES_SAMPLE, data_file
from ...pretokenize import count_pretokens
from ...train.step03_parallel import count_chunk, find_chunk_boundaries, merge_counts
from ..trusted.measure_worker import ProcessWatch, cpu_seconds, live_reads, reads_of
from ..trusted.worker.keeper import _proc_table
from ..trusted.measure_worker import available as measure_available
from .core import (
    Case, CheckFailed, CorpusFile, Lab, Later, Outcome, Task, TaskGraders, call_task, error_name, expected_result, materialized, passed,
    short_repr, stretch,
)
from .compare import CARRIED, WrongType, difference, hints, plain
from .measured import (
    COST_SPREAD, FRESH, MeasuredCost, answers_right, cases_explain_a_failure, keeper_id, mapped_bytes, measured_random,
    process_id, reference_cost,
)
from .spec import runs_remotely

# The learner's code may use lab 00's functions (count_pretokens above all); nothing else of bpe_ref.
PROVIDED = ("pretokenize", "corpus")

EOT = "<|endoftext|>"
PAD = "<|pad|>"
ENDOFPROMPT = "<|endofprompt|>"  # a special token longer than EOT (cl100k's)
START_METHODS = [method for method in ("spawn", "forkserver", "fork") if method in multiprocessing.get_all_start_methods()]
DEFAULT_START_METHOD = multiprocessing.get_all_start_methods()[0]  # Python's default here: the list starts with it

# ---- strategies ------------------------------------------------------------------------------

# Pieces of text, multi-byte characters included (a cut must never fall inside one), Windows line ends (a file read in
# text mode turns \r\n into \n: its counts are not the bytes'), and the special tokens. EOT and PAD never overlap each
# other, so the first occurrence of either at or after a guess is always a safe cut (overlapping tokens are the stretch task's).
PIECES = ["a", "b", " the", " cat", "\n", "\n\n", "\r\n", "é", "字", "🙂", "!", "<", "|", "<|", "endoftext", "pad|>", " 42"]


# The strategies the generated files draw from, built once each (hypothesis checks each new one again: a third of a
# draw's cost). A text's parts by its special tokens; a number of chunks, or more than the file has bytes (negative
# here: the file's size is drawn first).
_TEXT_PARTS = {tuple(tokens): st.lists(st.one_of(st.sampled_from(PIECES), st.sampled_from(tokens)), max_size=40)
               for tokens in ([EOT], [EOT, PAD], [PAD, EOT])}
_CHUNKS_OR_MORE = st.integers(1, 8) | st.integers(1, 20).map(lambda more: -more)


@st.composite
def corpus_texts(draw, tokens=(EOT, PAD)) -> tuple[str, list[str]]:
    """A text with special tokens dropped in anywhere, and the special tokens it uses."""
    special_tokens = draw(st.sampled_from([[EOT], [EOT, PAD], [PAD, EOT]] if PAD in tokens else [[EOT]]))
    parts = draw(_TEXT_PARTS[tuple(special_tokens)])
    return "".join(parts), special_tokens


@st.composite
def boundaries_inputs(draw) -> tuple:
    """A generated file, 1 to 8 chunks or, one time in three, more than it has bytes (every guess at 0: a chunk size of
    one byte at least, or page 03's toy's guesses, cut at later tokens), and read buffers of 1 to 16 bytes; one time in
    five a file with a token in its size's remainder (:func:`remainder_token_file`)."""
    if draw(st.integers(0, 4)) == 0:
        data, chunks, special_tokens = draw(remainder_token_file())
    elif draw(st.integers(0, 5)) == 0:
        data, chunks, special_tokens = draw(long_token_file())
    elif draw(st.integers(0, 5)) == 0:
        data, chunks, special_tokens = draw(one_byte_token_file())
    else:
        text, special_tokens = draw(corpus_texts())
        data = text.encode("utf-8")
        chunks = draw(_CHUNKS_OR_MORE)
        chunks = chunks if chunks > 0 else len(data) - chunks
    return CorpusFile(data), chunks, [t.encode("utf-8") for t in special_tokens], draw(st.integers(1, 16))


@st.composite
def remainder_token_file(draw) -> tuple[bytes, int, list[str]]:
    """``(data, desired_num_chunks, special_tokens)``: n chunks of c bytes, c and the remainder r (size = n * c + r,
    r < n) at least a token's length, a token in the last chunk and one in the remainder, letters elsewhere. Every guess
    cuts at the first (the right cuts), and a guess too many, at n * c (range(1, n + 1)), at the second: with 1 to 8
    chunks the remainder seldom holds a token, and a guess too many kept the points under most seeds."""
    special_tokens = draw(st.sampled_from([[EOT], [EOT, PAD], [PAD, EOT], [PAD]]))
    token = draw(st.sampled_from(special_tokens)).encode()
    size = len(token)
    chunk, remainder = draw(st.integers(size, size + 6)), draw(st.integers(size, size + 6))
    chunks = draw(st.integers(remainder + 1, remainder + 6))

    def letters(count: int) -> bytes:
        return draw(st.text(alphabet="ab c!\n", min_size=count, max_size=count)).encode()

    last, extra = draw(st.integers(0, chunk - size)), draw(st.integers(0, remainder - size))
    data = (letters((chunks - 1) * chunk + last) + token + letters(chunk - size - last + extra) + token
            + letters(remainder - size - extra))
    return data, chunks, special_tokens


@st.composite
def long_token_file(draw) -> tuple[bytes, int, list[str]]:
    """``(data, 2, special_tokens)``: letters, then a special token longer than <|endoftext|> after the middle (the
    guess), then fewer letters. Read in buffers of a few bytes, the token straddles a read's end at most offsets: an
    overlap of len(<|endoftext|>) - 1 bytes misses it there (a fixed hidden case alone caught that, and under secret seeds
    1, 2 and 3 the generated files held no token longer than <|endoftext|>)."""
    special_tokens = draw(st.sampled_from([[ENDOFPROMPT], [EOT, ENDOFPROMPT], [ENDOFPROMPT, EOT]]))
    before = draw(st.text(alphabet="ab c!\n", min_size=12, max_size=30))
    after = draw(st.text(alphabet="ab c!\n", max_size=4))
    return (before + ENDOFPROMPT + after).encode(), 2, special_tokens


@st.composite
def one_byte_token_file(draw) -> tuple[bytes, int, list[str]]:
    """``(data, desired_num_chunks, special_tokens)``: special tokens of one byte each, so the overlap is 0, with
    stretches of up to 40 characters between them, longer than a read of a few bytes: a search that keeps
    window[-overlap:] between reads carries the whole window (-0 is 0), and one that counts its position from it cuts
    too late (walk58: no file held a token of one byte)."""
    special_tokens = draw(st.sampled_from([["#"], ["#", "\x1e"], ["\x1e", "#"]]))
    stretches = st.text(alphabet="ab c!\n字", max_size=40)
    parts = draw(st.lists(st.tuples(stretches, st.sampled_from(special_tokens)), min_size=1, max_size=6))
    data = ("".join(stretch + token for stretch, token in parts) + draw(stretches)).encode()
    return data, draw(st.integers(1, 8)), special_tokens


def safe_cuts(text: str, special_tokens: list[str]) -> list[int]:
    """0, the file size, and the byte offset of every special token: the places a chunk may start or end."""
    data = text.encode("utf-8")
    cuts = {0, len(data)}
    for token in special_tokens:
        encoded = token.encode("utf-8")
        i = data.find(encoded)
        while i != -1:
            cuts.add(i)
            i = data.find(encoded, i + 1)
    return sorted(cuts)


# 132,000 bytes of 3-byte characters at a range's start: a character spans its byte 1,024, 2,048, 4,096, and every power
# of two up to 131,072 (with or without a byte order mark before them: no power of two is a multiple of 3), where a range
# decoded block by block cuts one. 9,000 bytes (to 8,192) let a range decoded in blocks of 64 KiB keep its points (fix53).
WIDE = "語" * 44_000

# Text that Unicode normalization changes: a letter and a combining accent (NFC makes them one character), characters
# that NFC replaces (the Angstrom and Ohm signs), and those NFKC replaces too (a ligature, a superscript, a full-width
# letter). The bytes are the corpus's, and so are its pretokens: a count_range (lab 10, novel52) and a count_chunk
# (fix53) that normalize the text they decode kept every point, the generated files holding none of them.
UNNORMALIZED = ["cafe\u0301", " A\u030angstro\u0308m", " \u212b", " \u2126", " n\u0303", " re\u0301sume\u0301",
                " \ufb01ne", " x\u00b2", " \uff21\uff22"]  # NFC changes the first six; NFKC alone the last three


@st.composite
def chunk_inputs(draw) -> tuple:
    """A generated file and a range of it between safe cuts; half the time the whole file, ending in a Windows line end
    or a blank one (which a range read in text mode, or decoded through a text wrapper, turns into \\n, and a range
    counted line by line cuts: generated texts held one in a range too seldom to find it under every seed), half of
    those after a run of wide characters (``WIDE``), half starting with a byte order mark (a character, which a range
    decoded as utf-8-sig drops), nine in ten of them with a piece of text that Unicode normalization changes
    (``UNNORMALIZED``: a range normalized, NFC or NFKC, kept its points before, fix53), and half counted with no special
    token (an <|endoftext|> in it plain text, not one taken by default, then a #, which no other file holds: a cache
    keyed by the range, given the same bytes counted with the tokens, answered with pieces of a token, which the hint
    took for tokens not passed on); of the other half, where
    two special tokens are listed, half a range that starts at the one listed last, with a piece after it (a range cut
    short by the first listed token's length, "the token a chunk starts at", kept its points under some seeds)."""
    text, special_tokens = draw(corpus_texts())
    if draw(st.booleans()):
        counted_with = draw(st.sampled_from([special_tokens, []]))
        text = (draw(st.sampled_from(["", "\ufeff"])) + draw(st.sampled_from(["", WIDE])) + text
                + draw(st.sampled_from(["", *UNNORMALIZED])) + ("" if counted_with else EOT + "#")
                + draw(st.sampled_from(["\r\n", "\r\n\r\n"])))
        return CorpusFile(text.encode("utf-8")), 0, len(text.encode("utf-8")), counted_with
    if len(special_tokens) > 1 and draw(st.booleans()):  # a range that starts at the token listed last
        start = len(text.encode("utf-8"))
        text += special_tokens[-1] + draw(st.sampled_from(PIECES))
        return CorpusFile(text.encode("utf-8")), start, len(text.encode("utf-8")), special_tokens
    cuts = safe_cuts(text, special_tokens)
    start, end = sorted(draw(st.lists(st.sampled_from(cuts), min_size=2, max_size=2)))
    return CorpusFile(text.encode("utf-8")), start, end, special_tokens


def chunk_counts_dicts():
    words = st.sampled_from([b"a", b" the", b" cat", b"\n", b"\xc3\xa9", b"!", b" 42", b"b"])
    return st.lists(st.dictionaries(words, st.integers(1, 9), max_size=5), max_size=5)


@st.composite
def file_count_inputs(draw) -> tuple:
    """A generated file of one of three shapes, a third of the draws each (the test draws about 12, each a pool of
    processes): one worker and a special token in the file (counted here, with the special tokens); a file long enough
    for many chunks, with a special token, and 2 to 4 workers (the chunks' counts merged: the same pretokens in many); no
    special token (no safe cut: the whole file counted here, whatever the workers, 2 to 4), its lines ending in \\r\\n (a file
    read in text mode loses them). Drawn independently, the first two came too seldom: under secret seed 2 a count with
    no special tokens on one worker, and a merge by dict.update, kept their points but for a fixed hidden case."""
    text, special_tokens = draw(corpus_texts())
    shape = draw(st.integers(0, 2))
    if shape == 2:  # 2 to 4 workers (one counts here whatever the special tokens: the first shape's)
        text, special_tokens = text.replace("\n", "\r\n") + "\r\n", []
        workers = draw(st.integers(2, 4))
    else:
        text += draw(st.sampled_from(special_tokens)) + draw(st.sampled_from(PIECES))
        text *= draw(st.sampled_from([1, 50])) if shape == 0 else 50
        workers = 1 if shape == 0 else draw(st.integers(2, 4))
    return (CorpusFile(text.encode("utf-8")), special_tokens, workers, draw(st.integers(1, 3)),
            draw(st.sampled_from(START_METHODS)))


# ---- task 1: where to cut --------------------------------------------------------------------


def file_bytes(file: object) -> bytes | None:
    """The bytes of a file argument: a ``CorpusFile``'s data, or what its path holds (None if unreadable)."""
    if isinstance(file, CorpusFile):
        return file.data
    if type(file) is str:
        try:
            with open(file, "rb") as handle:
                return handle.read()
        except OSError:
            return None
    return None


def searched_boundaries(data: bytes, chunks: int, tokens: list[bytes], buffer_size: int, overlap: int,
                        found_if: Callable[[int], bool], stop_short: int = 0) -> list[int]:
    """Task 1's search on ``data`` in memory, with the overlap between reads and the test that keeps an offset
    ``window.find`` returned given, and the search stopped ``stop_short`` bytes before the end: what a search with
    one of them wrong returns (novel50's hints, walk56's)."""
    size, boundaries = len(data), [0]
    for i in range(1, chunks):
        position = max(i * (size // chunks), boundaries[-1])
        while position + stop_short < size:
            window = data[position:position + buffer_size + overlap]
            found = [j for j in (window.find(t, 0, buffer_size + len(t) - 1) for t in tokens) if found_if(j)]
            if found:
                position += min(found)
                break
            position += buffer_size
        boundaries.append(min(position, size))
    boundaries.append(size)
    return sorted(set(boundaries))


def searched_wrongly(args: tuple, got: list, expected: list) -> str | None:
    """The hint of a search whose answer is the one an overlap of the first listed token, or an ``if j`` filter of
    the offsets found, gives on this file."""
    data = file_bytes(args[0])
    tokens = args[2] if len(args) > 2 else None
    buffer_size = args[3] if len(args) > 3 else 4096
    if (data is None or type(args[1]) is not int or args[1] < 1 or type(buffer_size) is not int or buffer_size < 1
            or not isinstance(tokens, list) or not tokens or not all(type(t) is bytes and t for t in tokens)):
        return None
    longest = max(len(t) for t in tokens) - 1
    if len(tokens[0]) - 1 != longest and got == searched_boundaries(data, args[1], tokens, buffer_size,
                                                                    len(tokens[0]) - 1, lambda j: j != -1):
        return (f"the overlap between reads is the first listed token's length less one ({len(tokens[0]) - 1} here), too "
                f"short for a longer token ({longest + 1} bytes), which a read's end then cuts in two: keep "
                "max(len(token) for token in split_tokens) - 1 bytes of overlap, for the longest of them")
    if got == searched_boundaries(data, args[1], tokens, buffer_size, longest, bool):
        return ("a token found at the very start of a read is at offset 0, which `if j` drops (0 is false) while it "
                "keeps -1 (find's 'not found', which is true): keep the offsets with `if j != -1`")
    if longest and got != expected and got == searched_boundaries(data, args[1], tokens, buffer_size, longest,
                                                                  lambda j: j != -1, stop_short=longest):  # walk56
        return ("the search stops short of the file's end (`while position + overlap < size`?): a guess in the file's "
                "last overlap bytes is kept as a boundary where no special token starts, and a token there is never "
                "looked for; search while position < size (a read near the end returns fewer bytes, and find works on "
                "them)")
    return None


def boundaries_hint(args: tuple, expected: object, got: object) -> str | None:
    if not (isinstance(expected, list) and isinstance(got, list)):
        return None
    if expected == [0] and file_bytes(args[0]) == b"":
        return ("an empty file: its start and its size are both 0, so its one boundary is 0; return [0] (the list "
                "holds 0 first and the size last, here the same offset once)")
    wrong_search = searched_wrongly(args, got, expected)
    if wrong_search:
        return wrong_search
    if expected and set(expected) < set(got) and max(got) > expected[-1]:  # offsets past its end: another file's
        return f"offsets past the file's end ({expected[-1]} bytes), from an earlier call: {CARRIED}"
    if got and expected and (got[0] != 0 or got[-1] != expected[-1]):
        return "the first boundary is 0 and the last is the file's size in bytes (file.seek(0, 2) returns it)"
    if len(got) != len(set(got)) or got != sorted(got):
        return ("boundaries must be sorted with no duplicates: two guesses can find the same token (a chunk with "
                "no special token in it); sorted(set(boundaries)) at the end")
    if type(args[1]) is int and expected and args[1] > expected[-1] and len(got) > len(expected):
        return ("more chunks asked for than the file has bytes: the guesses are i * (size // desired_num_chunks), all 0 "
                "here, so every inner cut is the first special token; do not make the chunk size at least 1")
    data = file_bytes(args[0]) or b""
    if len(got) == len(expected) and got != expected and all(  # walk56: told nothing
            g == e or any(type(t) is bytes and g == e + len(t) and data.startswith(t, e) for t in args[2])
            for g, e in zip(got, expected)):
        return ("a boundary after its special token: a boundary is where the special token starts (file offset of the read "
                "+ window.find(token)), so that the token begins the next chunk, not where it ends")
    if args[2] and all(type(t) is bytes and len(t) == 1 for t in args[2]):  # walk58: told "a boundary later"
        return ("special tokens of one byte each: the overlap, len(token) - 1, is 0, and window[-0:] is the whole window "
                "(-0 is 0), not b'': a search that keeps window[-overlap:] carries every byte read so far; keep "
                "window[max(0, len(window) - overlap):], or seek to the next read's start")
    if len(args[2]) > 1 and len(got) == len(expected) and any(g > e for g, e in zip(got, expected)):
        return ("a boundary later than expected, with several special tokens: take the earliest occurrence of any of "
                "them, not the first token's if there is one; and only one that starts in the first buffer_size bytes of "
                "the window (a token found in the overlap may be the inside of a longer one that starts in the next "
                "read, which finds it whole)")
    if not data.isascii() and any(type(g) is int and not any(data.startswith(t, g) for t in args[2]) for g in got[1:-1]):
        return ("a boundary inside the text, not at a special token, in a file with characters of several bytes: offsets "
                "count bytes; search the bytes you read (window.find(token)): the str.find of a decoded window counts "
                "characters (é is 2 bytes, 字 3)")
    if type(args[1]) is int and args[1] > 0 and got == drifted_boundaries(data, args[1], args[2]) != expected:
        return ("each guess is i * (size // desired_num_chunks), counted from the file's start: a guess made a chunk on "
                "from the boundary before drifts further with each token found after its guess, and skips cuts")
    if len(got) == len(expected) and any(g < e for g, e in zip(got, expected)):
        return ("a boundary earlier than expected: after several reads, is the position you add the token's offset to "
                "the start of the read that found it (not the guess)?")
    window = straddled_read(args)
    if len(got) < len(expected) and window is not None and window != args[3]:
        return (f"a boundary is missing: the special token at {expected[1]} starts far after the guess at {len(data) // 2}, "
                f"across the end of a read of {window} bytes from it; read buffer_size bytes at a time ({args[3]} here: the "
                "argument, not a size of your own) until a token is found or the file ends, and keep len(token) - 1 bytes "
                "of overlap between reads")
    if len(got) < len(expected):
        return ("a boundary is missing: a special token can straddle two reads (the end of one read, the start of the "
                "next); keep len(token) - 1 bytes of overlap between reads")
    return None


def drifted_boundaries(data: bytes, chunks: int, tokens: list) -> list[int]:
    """The boundaries of ``data`` with each guess a chunk on from the boundary before, not i chunks from the start."""
    boundaries = [0]
    for _ in range(1, chunks):
        found = [j for j in (data.find(t, boundaries[-1] + len(data) // chunks) for t in tokens) if j != -1]
        boundaries.append(min(found, default=len(data)))
    return sorted({*boundaries, len(data)})


def endless_read_hint(args: tuple, error: BaseException) -> str | None:
    """A search past its kernel time limit: most often a read loop that never meets the file's end."""
    if error_name(error) != "TookTooLong":
        return None
    return ("at the end of a file, read returns b'' for ever: a loop that reads until it finds a special token never ends "
            "when none is left after the guess; stop at an empty read (the boundary is then the file's size)")


FIND_TASK = Task("find_chunk_boundaries", ("path", "desired_num_chunks", "split_tokens", "buffer_size"),
                 what="a sorted list of int byte offsets, 0 first and the file size last", hint=boundaries_hint,
                 provided=PROVIDED, kernel_time_limit=20.0, error_hint=endless_read_hint,
                 unchanged=(2,))  # "leave split_tokens as it is": sorted in place (the longest last), the caller's list is reordered

# Special tokens one of which holds another ("of" is inside "<|endoftext|>"): where a long token
# starts near the end of a read and runs past the window, the short one inside it is found whole.
# A search of the whole window (buffer and overlap) then cuts inside the long token, later than its
# start; the page's pitfall "a short token found late in the window". Only these sets show it.
NESTED_TOKEN_SETS = [[EOT, "of"], [EOT, "text|>"], ["<|pad|>", "pad"], ["of", EOT, PAD]]


def first_occurrence_boundaries(path: str, desired_num_chunks: int, split_tokens: list[bytes],
                                buffer_size: int = 4096) -> list[int]:
    """Task 1 as the lab states it, on the whole file at once: each guess moves to the earliest start
    of any special token at or after it (the reference's search also skips a token that another
    straddles, the stretch task's, which task 1 does not ask for)."""
    with open(path, "rb") as file:
        data = file.read()
    size, chunk_size = len(data), len(data) // desired_num_chunks
    boundaries = [0]
    for i in range(1, desired_num_chunks):
        position = max(i * chunk_size, boundaries[-1])
        found = [j for j in (data.find(token, position) for token in split_tokens) if j != -1]
        boundaries.append(min(found) if found else size)
    boundaries.append(size)
    return sorted(set(boundaries))


@st.composite
def nested_text_inputs(draw) -> tuple:
    tokens = draw(st.sampled_from(NESTED_TOKEN_SETS).flatmap(st.permutations))
    parts = draw(st.lists(st.one_of(st.sampled_from(PIECES + ["o", "f", "p", "d", "t"]), st.sampled_from(tokens)),
                          max_size=30))
    return (CorpusFile("".join(parts).encode("utf-8")), draw(st.integers(1, 6)), [t.encode("utf-8") for t in tokens],
            draw(st.integers(1, 16)))


@st.composite
def past_the_buffer_inputs(draw) -> tuple:
    """2 chunks of a file whose first special token after the guess (its middle) is a long one holding a short one,
    starting a read or more after it (buffers of 1 or 2 bytes): the window that reads the long token's start in
    its overlap holds the short one whole. (Among the texts above, a few percent are laid out so.)"""
    tokens = draw(st.sampled_from([[EOT, "of"], ["<|pad|>", "pad"], ["of", EOT, PAD]]).flatmap(st.permutations))
    before = draw(st.text(alphabet="ab c!\n", min_size=24, max_size=40))  # no token in it; longer than the rest
    text = before + max(tokens, key=len) + draw(st.text(alphabet="ab c!\n", max_size=4))
    return CorpusFile(text.encode("utf-8")), 2, [t.encode("utf-8") for t in tokens], draw(st.integers(1, 2))


def nested_boundaries_inputs() -> st.SearchStrategy:
    """Files whose special tokens hold one another, half of them laid out so that a search of the whole window
    cuts inside a long token (generated texts alone showed it in about 5% of draws, and missed it under 1 seed in 5)."""
    return st.one_of(nested_text_inputs(), past_the_buffer_inputs())


BIG_FILE_MIB = 4  # the file whose reads are measured: far more than a few buffers
BIG_WORDS = [" the", " cat", " sat", " on", " mat", ",", ".", " café", " 字", " 🙂", " dog", " ran", "\n"]


def big_file(counted: bool = False):
    """About 4 MiB of documents of 0.5 to 1.5 KiB, each ending in a special token: the file whose reads are measured,
    drawn from the grading's secret seed, a fresh one for each measured call (:data:`.measured.FRESH`), its answer
    compared with the reference's (a fixed file let a whole-file read pass on every other call: redteam section 29).
    ``counted``: ``(data, its serial count)``, added up from its 256 distinct documents' counts (a special token ends
    each, so no pretoken spans two): 0.07 s of CPU where counting the 4 MiB took 1 s."""
    rng = measured_random(f"03_parallel:big_file:{next(FRESH)}")
    pool = [(f"Doc {rng.randint(0, 10**6)}:" + "".join(rng.choices(BIG_WORDS, k=rng.randint(80, 260))) + EOT).encode()
            for _ in range(256)]
    picked, size = [], 0
    while size < BIG_FILE_MIB * 2**20:
        picked.append(rng.randrange(len(pool)))
        size += len(pool[picked[-1]])
    data = b"".join(pool[i] for i in picked)
    if not counted:
        return data
    counts: Counter[bytes] = Counter()
    for i, times in Counter(picked).items():
        counts.update({pretoken: count * times for pretoken, count in count_pretokens(pool[i].decode(), [EOT]).items()})
    return data, dict(counts)


def measured_answer(task: Task, reference: Callable, args: tuple, outcome, call: str, expected: object = None) -> None:
    """A measured call fails on an error, and on an answer other than the reference's on the same file (``expected``,
    where it is known already)."""
    outcome.fail_on_error(call)
    expected = expected_result(task, reference, args) if expected is None else expected
    got = outcome.value[1]
    if not answers_right(expected, got):  # where they differ and the task's hint, as the cases' messages say it
        try:
            told = [f"  where they differ: {difference(plain(expected), plain(got))}", *hints(task, args, expected, got)]
        except WrongType:
            told = []
        raise CheckFailed("\n".join([f"{call} returned another answer than the reference's on this file (measured call): "
                                      f"{short_repr(got, 200)}", *told]))


def read_and_mapped(task: Task, learner: Callable, args: tuple) -> tuple[Outcome, dict, int]:
    """``(outcome, reads, mapped)`` of one call of ``learner`` on ``args`` (files already written): ``reads["bytes"]``,
    what its process and every process it started read (``None``: one hid its count), and the bytes of grader inputs
    they mapped meanwhile (0 where not counted), both measured from outside the learner's code. In a notebook (or a test
    process), the calling thread's reads alone: the process's count holds its other threads' too (in a test process,
    sandboxes' threads that read pipes and /proc, the likely source of 3 to 6 MB counted for a search that reads 12 KB,
    three times in a day)."""
    mapped_before = mapped_bytes(learner)
    pid = process_id(learner)
    with reads_of(pid if runs_remotely(learner) else calling_thread(pid), keeper_id(learner)) as reads:
        outcome = call_task(task, learner, args)
    mapped_after = mapped_bytes(learner)
    return outcome, reads, mapped_after - mapped_before if mapped_before is not None and mapped_after is not None else 0


def verify_reads_in_buffers(learner: Callable) -> None:
    """Task 1 says to read the file ``buffer_size`` bytes at a time, never whole: on :func:`big_file`, 4 chunks and
    buffers of 4 KiB, what the learner's processes read or map during the call (:func:`read_and_mapped`) must be under
    a quarter of the file, and its cuts the reference's. The search reads a few buffers per guess: about 20 KiB."""
    if not measure_available():
        passed("find_chunk_boundaries: its reads were not measured (this system has no /proc).")
        return
    data = big_file()
    args = materialized((CorpusFile(data), 4, [EOT.encode()], 4096), learner)
    outcome, reads, mapped = read_and_mapped(FIND_TASK, learner, args)
    call = f"find_chunk_boundaries(<a file of {len(data)} bytes>, 4, [{EOT.encode()!r}], 4096)"
    with cases_explain_a_failure(FIND_TASK, learner, find_chunk_boundaries, lambda: FIND.cases):  # a wrong cut, told small
        measured_answer(FIND_TASK, find_chunk_boundaries, args, outcome, call)
    if mapped > len(data) // 4:
        raise CheckFailed(
            f"{call} mapped {mapped} bytes of the file's {len(data)} into memory (mmap; measured from outside your code): "
            "read buffer_size bytes at a time from each guess (file.seek(guess), then file.read(buffer_size + overlap)), "
            "never the whole file, read or mapped: a corpus can be larger than the memory")
    if reads["bytes"] is None:  # /proc is there (checked above): a process of the worker's hid its count
        raise CheckFailed(
            f"{call}: the bytes your process and those it started read could not be measured from outside your code (one "
            "made itself unreadable, e.g. undumpable): read buffer_size bytes at a time from each guess, and leave the "
            "processes as Python starts them")
    if reads["bytes"] > len(data) // 4:
        raise CheckFailed(
            f"{call} read {reads['bytes']} bytes of the file's {len(data)} (by your process and any it started, measured "
            "from outside your code): read buffer_size bytes at a time from each guess (file.seek(guess), then "
            "file.read(buffer_size + overlap)), never the whole file: a corpus can be larger than the memory")
    passed(f"find_chunk_boundaries: reads in buffers ({reads['bytes']} bytes read, {mapped} mapped of a {len(data) // 2**20} "
           "MiB file).")


# More chunks asked for than the file has bytes, and two special tokens or more: size // desired_num_chunks is 0, so
# every guess is 0 and every inner cut is the first token. A chunk size of at least one byte (max(1, ...)) spreads the
# guesses over the file and cuts at the later tokens too; the generated files ask for so many one time in three
# (boundaries_inputs), so that they catch it alone, and this case keeps no point a table of it could.
# Reads of a fixed size: the size a learner who reads, say, 4096 bytes whatever ``buffer_size`` is, would pick. Such
# a search never meets the straddle of the generated files (all of them in its first read), so without the overlap it
# kept its points (learner48): these files cut a special token in two at the end of such a read from the guess.
FIXED_READS = (1024, 4096, 8192, 65536)


def straddling_read(window: int, rng=None) -> tuple:
    """2 chunks of a file whose one special token straddles byte ``window`` after the guess (``size // 2``): a read of
    ``window`` bytes from the guess holds its start, not its end. Read in buffers of 16 bytes (the argument), the
    search finds it; the filler (``rng``'s letters, or ``a``) has no token."""
    token = EOT.encode()
    cut = rng.randint(1, len(token) - 1) if rng else 5  # bytes of the token inside the fixed read
    after = rng.randint(40, 300) if rng else 100  # bytes after the token
    start = len(token) + after + 2 * window - 2 * cut  # then the guess, (start + len(token) + after) // 2, is start - window + cut
    text = "".join(rng.choices("abcdefgh xyz", k=start + after)).encode() if rng else b"a" * (start + after)
    return CorpusFile(text[:start] + token + text[start:]), 2, [token], rng.choice([16, 13, 7]) if rng else 16


def straddled_read(args: tuple) -> int | None:
    """The fixed read size whose end a :func:`straddling_read` file's token straddles, or None for another file."""
    data = file_bytes(args[0]) or b""
    if args[1] != 2 or len(data) < 2 * FIXED_READS[0]:
        return None
    start, guess = data.find(EOT.encode()), len(data) // 2
    return next((window for window in FIXED_READS if guess <= start < guess + window < start + len(EOT)), None)


# Special tokens of one byte: the overlap is 0, and a carry of window[-0:] is the whole window, not b'' (walk58). Also
# run where task 1's timed search of a one-byte stretch fails, to tell a wrong answer first (ONE_BYTE_WINDOW).
ONE_BYTE_CASES = [
    Case((CorpusFile(b"abcdefghij#klmnopqrstu#vwxyz0123456789#end"), 4, [b"#"], 3)),
    Case((CorpusFile(b"abcdefghij\x1eklmnopqrstuvwxyz\x1e0123456789\x1dend"), 3, [b"\x1d", b"\x1e"], 4)),
]

FIND_HIDDEN_CASES = [
    Case((CorpusFile(b"<|pad|>a<|pad|>b"), 20, [PAD.encode()], 4)),
    Case((CorpusFile(b"ab<|pad|>cd<|endoftext|>ef"), 30, [EOT.encode(), PAD.encode()], 3)),
    # both tokens in the first window, the one listed second found first: the first listed token's offset is too far
    Case((CorpusFile(b"ab<|pad|>cd<|endoftext|>ef"), 30, [EOT.encode(), PAD.encode()], 4096)),
    *(Case(straddling_read(window)) for window in FIXED_READS),
    # a special token longer than <|endoftext|> (cl100k's <|endofprompt|>, 15 bytes) across the end of a read: an
    # overlap of len(EOT) - 1 bytes, the page's token's, loses it (learn52)
    Case((CorpusFile(b"ab" + ENDOFPROMPT.encode() + b"cd"), 30, [EOT.encode(), ENDOFPROMPT.encode()], 4)),
    *ONE_BYTE_CASES,
]


def filler(rng, most: int = 3) -> bytes:
    """Up to ``most`` letters drawn from ``rng``: no special token holds a run of them."""
    return "".join(rng.choices("abcdefgh xyz", k=rng.randint(0, most))).encode()


def varied_find(args: tuple, rng) -> tuple:
    """A fixed hidden case of task 1 drawn again from ``rng`` (``hidden_vary``), as a table of the public cases' answers
    misses it: a file of two to four special tokens of the case's (in a drawn order, letters drawn between them), more
    chunks asked for than it has bytes, and a drawn buffer size. Every guess stays at 0, and a chunk size of one byte
    at least still cuts at a later token than the first."""
    window = straddled_read(args)
    if window is not None:  # another file whose token straddles the end of the same fixed read
        return straddling_read(window, rng)
    file, _, split_tokens, _ = args
    tokens = rng.choices(split_tokens, k=rng.randint(2, 4))
    if all(len(token) == 1 for token in split_tokens):  # longer fillers: the first token lies several reads on
        data = bytes(rng.choices(b"abcdefgh xyz", k=rng.randint(8, 20))) + b"".join(token + filler(rng, 12) for token in tokens)
    else:
        data = filler(rng) + b"".join(token + filler(rng) for token in tokens)
    return CorpusFile(data), len(data) + rng.randint(1, 20), rng.sample(split_tokens, len(split_tokens)), rng.randint(2, 6)


# A search that starts each guess at i * chunk_size even where the cut before it already lies past it (the reference's
# max(i * chunk_size, boundaries[-1])) finds the same cut again, so its answer is right, but reads the same stretch again
# from each guess: on a corpus with a long stretch without special tokens, the guesses in it read it over and over (walk58:
# 30 times more bytes, full marks). So task 1's hidden test also measures the reads on a file of LONG_STRETCH_MIB MiB whose
# one special token after the first documents comes near its end, cut in LONG_STRETCH_CHUNKS chunks: a search that goes
# on from the cut before reads the stretch once (about 0.9 of the file), one from every guess about 3.5 times the file.
LONG_STRETCH_MIB, LONG_STRETCH_CHUNKS = 1, 8


def long_stretch_file() -> bytes:
    """A few documents, each ending in a special token, then a stretch of words without any (drawn from the grading's
    seed, a fresh file for each call) up to 97% of :data:`LONG_STRETCH_MIB` MiB, then one special token and a word."""
    rng = measured_random(f"03_parallel:long_stretch:{next(FRESH)}")
    size = LONG_STRETCH_MIB * 2**20
    head = b"".join((" ".join(rng.choices(BIG_WORDS, k=rng.randint(80, 260))) + EOT).encode() for _ in range(3))
    words = []
    length = len(head)
    while length < 0.97 * size:
        words.append(rng.choice(BIG_WORDS))
        length += len(words[-1].encode())
    return head + "".join(words).encode() + EOT.encode() + b" The end."


def verify_long_stretch_read_once(learner: Callable) -> None:
    """On :func:`long_stretch_file`, cut in :data:`LONG_STRETCH_CHUNKS` chunks with buffers of 4 KiB, what the learner's
    processes read during the call (:func:`read_and_mapped`) must be under 1.5 times the file, and its cuts the
    reference's: each search goes on from the cut before it where that lies past its guess."""
    if not measure_available():
        passed("find_chunk_boundaries: its reads were not measured (this system has no /proc).")
        return
    data = long_stretch_file()
    args = materialized((CorpusFile(data), LONG_STRETCH_CHUNKS, [EOT.encode()], 4096), learner)
    outcome, reads, _ = read_and_mapped(FIND_TASK, learner, args)
    call = (f"find_chunk_boundaries(<a file of {len(data)} bytes, one special token at {data.rindex(EOT.encode())} after "
            f"the first documents>, {LONG_STRETCH_CHUNKS}, [{EOT.encode()!r}], 4096)")
    with cases_explain_a_failure(FIND_TASK, learner, find_chunk_boundaries, lambda: FIND.cases):
        measured_answer(FIND_TASK, find_chunk_boundaries, args, outcome, call)
    if reads["bytes"] is None:
        raise CheckFailed(f"{call}: the bytes your process and those it started read could not be measured from outside "
                          "your code (one made itself unreadable, e.g. undumpable): leave the processes as Python starts them")
    if reads["bytes"] > 1.5 * len(data):
        raise CheckFailed(
            f"{call} read {reads['bytes']} bytes, {reads['bytes'] / len(data):.1f} times the file (by your process and any "
            "it started, measured from outside your code): where the cut before lies past a guess, search on from that cut; "
            "from the guess itself, each search reads again the stretch the one before it read")
    passed(f"find_chunk_boundaries: reads a long stretch without special tokens once ({reads['bytes']} bytes read of a "
           f"{len(data) // 2**10} KiB file).")


# Special tokens of one byte each make the overlap 0, and a search that keeps window[-overlap:] between reads keeps
# window[-0:], the whole window (-0 is 0): its cuts are right, but its window grows with every read, and each read
# copies and searches all the ones before it, time quadratic in a stretch without special tokens and memory its size
# (walk58: full marks). Task 1's hidden test ends by timing one search of such a stretch: a file of ONE_BYTE_MIB MiB with
# b"#" at its start and near its end, cut in 2 chunks, read 16 bytes at a time. The reference takes about 0.1 s, a
# window kept whole as bytes some 30 times as long, as a bytearray extended in place (cheaper copies) about 20 times
# (with 3 MiB and a bound of 0.4 s + 8 times the reference's, that one passed at 0.87 s: walk58's red team).
ONE_BYTE_MIB, ONE_BYTE_READ = 4, 16


def one_byte_stretch(index: int) -> tuple:
    """``(file, 2, [b"#"], 16)``: b"#", words without it (drawn from the grading's seed, fresh for each ``index``) up
    to :data:`ONE_BYTE_MIB` MiB, b"#" and a word."""
    rng = measured_random(f"03_parallel:one_byte_stretch:{index}")
    words, length = [], 0
    while length < ONE_BYTE_MIB * 2**20:
        words.append(rng.choice(BIG_WORDS))
        length += len(words[-1].encode())
    return CorpusFile(b"#" + "".join(words).encode() + b"# The end."), 2, [b"#"], ONE_BYTE_READ


ONE_BYTE_WINDOW = MeasuredCost(
    task=FIND_TASK, reference=find_chunk_boundaries, build=one_byte_stretch,
    shape=f"<a file of {ONE_BYTE_MIB} MiB: b'#', words without it, b'#'>, 2, [b'#'], {ONE_BYTE_READ}",
    factor=5, slack=0.2, timeout=30.0, warm_up=2,
    too_slow="with special tokens of one byte the overlap, len(token) - 1, is 0, and window[-0:] is the whole window "
             "(-0 is 0), not b'': a search that keeps window[-overlap:] between reads carries every byte it has read, "
             "copied and searched again at each read; keep window[max(0, len(window) - overlap):], or seek to each read's start",
    said=lambda cost, name: cost.said(f"{name}: a stretch of {ONE_BYTE_MIB / 2:g} MiB without a one-byte special token "
                                      "searched in "),
    cases=lambda: [*FIND.cases, *ONE_BYTE_CASES])


def verify_one_byte_window(learner: Callable) -> None:
    """A search with special tokens of one byte keeps no window of all it has read (:data:`ONE_BYTE_WINDOW`), on
    files written where the learner's code can read them (a measured call takes its arguments as they are)."""
    dataclasses.replace(ONE_BYTE_WINDOW, build=lambda index: materialized(one_byte_stretch(index), learner)).verify(learner)


# Task 1's hidden test: the bytes it reads measured first, then the fixed cases (files whose token straddles the end
# of a read of a fixed size, FIXED_READS), generated files with read buffers of 1 to 16 bytes, then files whose special
# tokens hold one another (against first_occurrence_boundaries).
FIND = TaskGraders(
    FIND_TASK,
    find_chunk_boundaries,
    [
        Case((CorpusFile(b"one<|endoftext|>two<|endoftext|>three"), 3, [EOT.encode()], 4096)),
        Case((CorpusFile(b"x" * 20 + EOT.encode() + b"y" * 20), 2, [EOT.encode()], 4)),  # straddles two reads
        Case((CorpusFile(b"no special token here"), 4, [EOT.encode()], 8)),
        Case((CorpusFile(b""), 3, [EOT.encode()], 4096)),
        Case((CorpusFile(EOT.encode() * 3), 8, [EOT.encode()], 5)),  # more chunks asked for than tokens
        Case((CorpusFile("café<|endoftext|>字🙂<|endoftext|>".encode()), 2, [EOT.encode()], 3)),
        Case((CorpusFile("ab字字<|endoftext|>cd".encode()), 8, [EOT.encode()], 4096)),  # a token after characters of 3 bytes
        Case((CorpusFile(b"ab<|pad|>cd<|endoftext|>ef<|pad|>gh"), 3, [EOT.encode(), PAD.encode()], 6)),
        # guesses at 27 and 54 (i * size // 3), though the first cut is at 45: not a chunk on from the cut before
        Case((CorpusFile(b"ab" + EOT.encode() + b"cdefgh" + EOT.encode() + b"ijklmnopqrs" + EOT.encode() + b"tuvwxyz"
                         + EOT.encode() + b"end"), 3, [EOT.encode()], 4096)),
        Case(straddling_read(4096)),  # straddles the end of a read of 4096 bytes from the guess: read buffer_size bytes
    ],
    boundaries_inputs(),
    max_examples=150,
    hidden_cases=FIND_HIDDEN_CASES,
    hidden_vary=varied_find,
    hidden_verify=(verify_reads_in_buffers, verify_long_stretch_read_once, verify_one_byte_window),
    then=TaskGraders(FIND_TASK, first_occurrence_boundaries, [], nested_boundaries_inputs(), max_examples=100),
)


# ---- task 2: the map -------------------------------------------------------------------------


def newline_hint(expected: object, got: object) -> str | None:
    """Counts of a file read in text mode: its CR LF line ends became LF (the same hint for tasks 2 and 4), so counts
    with no line end at all are not (a cache's, kept from another file: ``{b'aa': 1}`` for ``b'\\r\\n'``)."""
    keys = [key for key in got if type(key) is bytes] if isinstance(got, dict) else []
    if (isinstance(expected, dict) and any(b"\r" in key for key in expected if type(key) is bytes)
            and not any(b"\r" in key for key in keys) and any(b"\n" in key for key in keys)):
        return ("the file's \\r\\n line ends are gone from your counts: open the file in binary mode (\"rb\") and decode "
                "its bytes; a file opened in text mode turns \\r\\n into \\n, and the pretokens change")
    return None


def normalized_counts(text: str, special_tokens: list) -> list[tuple[str, dict]]:
    """The counts of ``text`` normalized in each of Unicode's forms that changes it, with the form's name."""
    return [(form, count_pretokens(unicodedata.normalize(form, text), special_tokens)) for form in ("NFC", "NFKC", "NFD")
            if unicodedata.normalize(form, text) != text]


def normalized_hint(form: str) -> str:
    """The hint for the counts of a range's text normalized in Unicode's ``form`` (lab 03's count_chunk, lab 10's
    count_range)."""
    return (f"these are the counts of the range's text normalized ({form}): 'é' may be written as one character "
            "or as 'e' and a combining accent, and the two are other bytes, other pretokens; a tokenizer counts the "
            "bytes the corpus holds, so decode the range and count it as it is, without unicodedata.normalize")


def decoded_otherwise_hint(data: bytes, start: int, end: int, special_tokens: list, got: object) -> str | None:
    """The hint for the counts of a range of valid UTF-8 decoded otherwise: its text normalized, or its bytes decoded as
    Latin-1 (each byte a character: a character of several bytes becomes several, which the pattern splits).
    Before fix53 the Latin-1 counts got the hint of a cache's (keys nowhere in the file), normalized ones none."""
    try:
        text = data[start:end].decode("utf-8")
    except (TypeError, ValueError):
        return None
    forms = [form for form, counts in normalized_counts(text, special_tokens) if counts == got]
    if forms:  # NFC and NFKC alike where the text holds nothing NFKC alone changes: both named
        return normalized_hint(" or ".join(forms))
    decoded = data[start:end].decode("latin-1")
    if decoded != text and got == count_pretokens(decoded, special_tokens):
        return ("these are the counts of the range's bytes decoded as latin-1, one character a byte: a character of "
                "several bytes in UTF-8 ('é' is b'\\xc3\\xa9') becomes several characters, which the pattern cuts apart "
                "and count_pretokens encodes again as UTF-8. The file is UTF-8: data.decode('utf-8')")
    return None


def chunk_hint(args: tuple, expected: object, got: object) -> str | None:
    newline = newline_hint(expected, got)
    if newline:
        return newline
    if isinstance(got, dict) and b"'" in got and (b"b" in got or any(key.startswith(b"b'") for key in got if type(key) is bytes)):
        return ("your counts hold b and ' as pretokens: str(data) of bytes is their repr, \"b'...'\", not their text; "
                "decode them, data.decode('utf-8')")
    if isinstance(got, dict) and any(type(key) is str for key in got):
        return "the keys are bytes: count_pretokens (lab 00) gives them so; or encode each pretoken with .encode('utf-8')"
    data = file_bytes(args[0])
    if not (isinstance(got, dict) and isinstance(expected, dict)):
        return None
    otherwise = decoded_otherwise_hint(data, args[1], args[2], args[3], got) if data is not None and got != expected else None
    if otherwise:
        return otherwise
    cut_off = ("the range starts with a special token, and your counts miss pretokens after it: count the range's "
               "bytes as they are (count_pretokens drops the special tokens, whichever it is), do not cut a token off")
    if data is not None and any(data.startswith(token.encode("utf-8"), args[1]) for token in args[3]) and any(
            got == count_pretokens(data[args[1] + len(token.encode("utf-8")):args[2]].decode("utf-8", "replace"), args[3])
            for token in args[3]):
        return cut_off
    blanked = data
    for token in args[3] if data is not None else ():
        blanked = blanked.replace(token.encode("utf-8"), b"\x00")  # a key found only inside a special token: not here
    pieces = [key for key in got if type(key) is bytes and len(key) > 1 and blanked is not None and key not in blanked
              and any(key in token.encode("utf-8") for token in args[3])]
    if pieces and not any(type(key) is bytes and key not in data for key in got):
        # pieces of a special token the range holds, every key in it: the tokens were not split off (not a cache's keys)
        return (f"your counts hold {pieces[0]!r}, a piece of a special token: pass special_tokens on to count_pretokens "
                "(count_pretokens(text, special_tokens)), so that the tokens are split off before the regex runs")
    for extra in (1, 2, 3) if data is not None else ():  # walk56: end - start + 1 was told of a cache
        try:
            past = count_pretokens(data[args[1]:args[2] + extra].decode("utf-8"), args[3])
        except UnicodeDecodeError:
            continue
        if args[2] + extra <= len(data) and got == past:
            return (f"your counts are those of the range and the {extra} byte{'s' if extra > 1 else ''} after it: read "
                    "exactly end - start bytes (file.read(end - start)), the end excluded, as a slice data[start:end]")
    if blanked is not None and any(type(key) is bytes and key not in blanked for key in got):
        return (f"your counts hold {next(key for key in got if type(key) is bytes and key not in blanked)!r}, which is "
                "nowhere in this file's text: counts kept from an earlier call (a cache keyed by the range, which another "
                "file shares)? Count each call's own range")
    if sum(got.values()) > sum(expected.values()):
        return ("more pretokens than in the chunk: read exactly end - start bytes, after file.seek(start), from the file "
                "opened in binary mode (\"rb\"; in text mode, read(n) reads n characters, more bytes than n)")
    if data is not None and any(data.startswith(token.encode("utf-8"), args[1]) for token in args[3]):
        return cut_off
    return None


MODULE_BYTES = 2**20  # the most of a count_chunk module's file that its driver reads


def opened_regular(path: str, flags: int, mode: int = 0o644) -> int:
    """An fd of the regular file at ``path``, opened with ``flags`` and without blocking (``O_NONBLOCK``): the learner's
    code chooses the path (a module's ``__file__``, a file of its folder), and a fifo or a pipe there blocked the worker
    until the call's backstop of wall time, 240 s at 0 CPU, call after call (redteam section 44). ``OSError`` else."""
    import os
    import stat

    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path!r} is not a regular file")
    return fd


NOT_IN_A_MODULE = ("count_chunk is defined in a notebook cell (its module is __main__): a worker started by spawn or "
                   "forkserver cannot import it. Write it in the cell that starts with %%writefile chunk_counting.py, run "
                   "that cell, then the read-only import cell after it")
# What the process of its own runs for each call, as source (spawn sends a function by its module's name, and a
# driver's is none that a fresh interpreter imports): the module's file run once per file and source, as an import runs
# it (so that its state lasts from call to call), then its count_chunk called.
IN_A_FRESH_PROCESS = """
import sys
modules = sys.__dict__.setdefault("_graded_modules", {})
if (path, source) not in modules:
    namespace = {"__name__": module, "__file__": path, "__package__": module.rpartition(".")[0]}
    exec(compile(source, path, "exec"), namespace)
    modules[path, source] = namespace
if not callable(modules[path, source].get(name)):
    raise RuntimeError(missing)
result = modules[path, source][name](*args)
"""


def from_its_module(function: Callable, *args: object, _loaded: dict = {}) -> object:  # noqa: B006 (kept between calls)
    """Call ``count_chunk(*args)`` as its module's file defines it, in a process of its own started by spawn, as a pool's
    worker runs it: the file of ``function``'s module, read here and run there (once per file and source), never
    ``function`` itself (a driver, so that the grading worker checks it too, where the trusted side sees only data).
    A function's ``__module__``, ``__qualname__`` and ``__code__`` are the notebook's to set, and in the notebook's
    process the module's code reached the cell's function through ``import __main__`` or its frames: both kept task 2's
    points (redteam section 42). A fresh interpreter holds nothing of the notebook: what is graded is what the file
    holds. The process is kept from call to call (``_loaded``: 0.5 s to start). Out of the grading worker (expected
    answers, a kernel's advice), the file runs in the calling process, with a ``__main__`` of no names all the same."""
    import concurrent.futures
    import multiprocessing
    import os
    import sys

    module, name = getattr(function, "__module__", None), getattr(function, "__qualname__", None)
    path = getattr(sys.modules.get(module), "__file__", None) if type(module) is str and module != "__main__" else None
    if type(path) is not str or type(name) is not str:
        raise RuntimeError(NOT_IN_A_MODULE)
    try:
        with open(opened_regular(path, os.O_RDONLY), "rb") as file:  # (the builtin as it was before any learner's code)
            source = file.read(MODULE_BYTES + 1)
    except (OSError, TypeError, ValueError) as error:
        raise RuntimeError(f"the file of count_chunk's module cannot be read: {error}") from None
    if len(source) > MODULE_BYTES:
        raise RuntimeError(f"the file of count_chunk's module, {path!r}, is more than {MODULE_BYTES} bytes")
    call = {"path": path, "source": source, "module": module, "name": name, "args": args, "missing": NOT_IN_A_MODULE}
    notebook = sys.modules.get("__main__")
    sys.modules["__main__"] = type(sys)("__main__")  # a spawned worker's: no name of the notebook's (spawn runs no file)
    try:
        if not (sys.flags.isolated and sys.flags.no_site):  # not the grading worker (python -I -S): the trusted side's
            exec(IN_A_FRESH_PROCESS, call)                  # reference, or a kernel's advice, whose reads count here
            return call["result"]
        if "pool" not in _loaded:
            _loaded["pool"] = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return _loaded["pool"].submit(eval, "exec(code, call) or call['result']", {"code": IN_A_FRESH_PROCESS,
                                                                                   "call": call}).result()
    except concurrent.futures.BrokenExecutor:
        _loaded.pop("pool").shutdown(wait=False)  # the process died (its code ended it): a new one for the next call
        raise
    finally:
        sys.modules["__main__"] = notebook


# From the module chunk_counting: task 4's workers import it by name (checked in the kernel; the grading
# worker imports it from there anyway, and its driver checks again where the trusted side sees only data).
def chunk_decode_hint(args: tuple, error: BaseException) -> str | None:
    if "'__main__'" in str(error):
        return ("your module chunk_counting takes a name from the notebook (__main__): a worker started by spawn has no "
                "notebook, so the module must define or import everything it uses itself")
    return decoded_whole_hint(error)


def decoded_whole_hint(error: BaseException) -> str | None:
    """A UnicodeDecodeError on a range that is UTF-8 (lab 03's count_chunk, lab 10's count_range): decoded in blocks."""
    if error_name(error) == "UnicodeDecodeError":
        return ("the range starts and ends between characters, but a part of it may not: a block of a fixed size (4 KiB, "
                "1 MiB, any) can end inside a character of several bytes, which then cannot be decoded alone; decode the "
                "range's bytes whole (read end - start bytes, then data.decode('utf-8'))")
    return None


COUNT_CHUNK_TASK = Task("count_chunk", ("path", "start", "end", "special_tokens"),
                        what="a dict mapping pretokens (bytes) to counts", hint=chunk_hint, provided=PROVIDED,
                        driver=from_its_module, in_module="chunk_counting", error_hint=chunk_decode_hint)

def verify_chunk_reads(learner: Callable, task: Task = COUNT_CHUNK_TASK) -> None:
    """Task 2 says the worker reads bytes [start, end): on :func:`big_file`, for a range of about 32 KiB in its middle,
    what the learner's processes read or map during the call (:func:`read_and_mapped`) must be under a quarter of the
    file, and its counts the reference's: a worker that reads the whole file and slices it gets the same counts, and
    reads the corpus once per chunk. (Lab 10's count_range, the same map, is measured so too: ``task``.)"""
    if not measure_available():
        passed(f"{task.name}: its reads were not measured (this system has no /proc).")
        return
    data = big_file()
    start = data.find(EOT.encode(), len(data) // 2)  # a special token's start: a chunk's start in task 4
    end = data.find(EOT.encode(), start + 32 * 2**10)
    args = materialized((CorpusFile(data), start, end, [EOT]), learner)
    if task.driver is from_its_module:  # a first call, unmeasured: in the grading worker, the driver starts the process
        # it runs count_chunk in (spawn: some 3 MB of start-up read), which a worker restarted before this call would pay
        call_task(task, learner, (CorpusFile(b"cat"), 0, 3, [EOT]))
    outcome, reads, mapped = read_and_mapped(task, learner, args)
    call = f"{task.name}(<a file of {len(data)} bytes>, {start}, {end}, [{EOT!r}])"
    with cases_explain_a_failure(task, learner, count_chunk, lambda: COUNT_CHUNK.cases if task is COUNT_CHUNK_TASK else []):
        measured_answer(task, count_chunk, args, outcome, call)  # a wrong answer told small (lab 03's cases), then here
    read = max(reads["bytes"] or 0, mapped)
    if read > len(data) // 4:
        raise CheckFailed(
            f"{call} read {read} bytes of the file's {len(data)} for a range of {end - start} (by your process and any "
            "it started, read or mapped, measured from outside your code): file.seek(start), then file.read(end - start). "
            "Each worker reads its own range only; reading the whole file and slicing it reads the corpus once per chunk")
    passed(f"{task.name}: reads its range only ({reads['bytes']} bytes read, {mapped} mapped, for a range of "
           f"{end - start} bytes of a {len(data) // 2**20} MiB file).")


# ---- task 2: a range longer than a reader's block ----------------------------------------------------------------------
# A range read and decoded a block at a time (file.read(2**20) in a loop, each block decoded on its own) cuts a character
# of several bytes at each block's edge: UnicodeDecodeError, or, decoded with errors=, other text. The generated files
# put wide characters across every power of two to 131,072 only (WIDE): blocks of 1 MiB, 4 MiB or a million bytes kept
# task 2's points (tests/test_grading_redteam.py, section 112). So one range past 4 MiB, at the file's start, of words of
# 3-byte letters drawn from the grading's seed, each followed by a comma of 3 bytes (long pretokens: cheap to count), a
# character across every power of two and of ten from 1,024 on (neither is a multiple of 3), then a few words.
ACROSS_BLOCKS_BYTES = 2**22 + 3 * 2**12
LETTERS_OF_3_BYTES = "語字漢本日月山川水火木金土雨"
READERS_BLOCKS = (2**20, 10**6, 2**22, 2**16, 2**13)  # the blocks a reader's hint names, when the counts are theirs


def across_blocks_hint(name: str, text: str, got: object, error: BaseException | None) -> str:
    """What a range counted wrong across a reader's blocks means, from what the learner's function did."""
    if error is not None:
        return decoded_whole_hint(error) or (f"{name} raised on a range of UTF-8 whose characters span every power of two "
                                             "and of ten: read end - start bytes, then data.decode('utf-8')")
    data = text.encode("utf-8")
    for block in READERS_BLOCKS:
        for errors in ("replace", "ignore"):
            if got == count_pretokens("".join(data[i:i + block].decode("utf-8", errors)
                                              for i in range(0, len(data), block)), [EOT]):
                return (f"these are the counts of the range decoded {block:,} bytes at a time with errors={errors!r}: "
                        f"the character of 3 bytes across byte {block:,} (and each multiple of it) is "
                        f"{'replaced' if errors == 'replace' else 'dropped'}, each block decoded alone. Read the range at "
                        "once, file.read(end - start), and decode that strictly")
    return (f"{name} counted a range of 4 MiB of wide characters wrong: each of 3 bytes spans a power of two, so a "
            "range read and decoded a block at a time cuts one at every block's edge; read and decode it whole")


def verify_decoded_across_blocks(learner: Callable, task: Task = COUNT_CHUNK_TASK) -> None:
    """Task 2's range decoded as one text, however it is read: a range of :data:`ACROSS_BLOCKS_BYTES` of 3-byte characters
    (words drawn from the grading's seed, and commas), then a few words, must be counted as the reference counts it. (Lab 10's count_range,
    the same map, is checked so too: ``task``.)"""
    rng = measured_random(f"{task.name}:decoded across blocks")
    # words of 20 to 60 letters, each followed by an ideographic comma (a pretoken of its own, 3 bytes too): some 35,000
    # pretokens of 7 kinds (one pretoken of 4 MiB would be a reply past the worker's bound)
    vocabulary = ["".join(rng.choices(LETTERS_OF_3_BYTES, k=rng.randint(20, 60))) for _ in range(6)]
    run = "".join(word + "、" for word in rng.choices(vocabulary, k=64))
    words = "".join(rng.choices([" the", " cat", "!", " 42", "\n", " é", "a"], k=rng.randint(1, 6)))
    text = run * (ACROSS_BLOCKS_BYTES // len(run.encode("utf-8")) + 1) + words
    end = len(text.encode("utf-8"))
    file = (text + EOT + rng.choice(PIECES)).encode("utf-8")
    call = (f"{task.name}(<a file of {len(file)} bytes: {end - len(words.encode())} bytes of characters of 3 bytes each "
            f"(words and commas, {run[:12]!r}...), then {words!r}, {EOT!r}, ...>, 0, {end}, [{EOT!r}])")
    outcome = call_task(task, learner, (CorpusFile(file), 0, end, [EOT]))
    expected = count_pretokens(text, [EOT])
    got = None if outcome.error is not None else outcome.value[1]
    if outcome.error is not None and error_name(outcome.error) == "NotImplementedError":
        raise CheckFailed(f"{task.name} is not written yet: it still raises NotImplementedError")
    if outcome.error is not None or not answers_right(expected, got):
        what = (f"raised {error_name(outcome.error)}: {str(outcome.error)[:160]}" if outcome.error is not None
                else f"returned {short_repr(got, 160)}")
        raise CheckFailed(f"{call} {what}\n  expected: {short_repr(expected, 160)}\n  hint: "
                          + across_blocks_hint(task.name, text, got, outcome.error))
    passed(f"{task.name}: counts a range of {end} bytes whose characters span every power of two as one text.")


def verify_decoded_whole(learner: Callable) -> None:
    """After the generated files (whose wide characters span the powers of two to 131,072, with the hints of smaller
    blocks): a range past 4 MiB (:func:`verify_decoded_across_blocks`), then ranges that are not UTF-8
    (:func:`verify_not_utf8`)."""
    verify_decoded_across_blocks(learner)
    verify_not_utf8(learner)


# ---- task 2: a range that is not UTF-8 -------------------------------------------------------------------------------
# The statement says the range's bytes are decoded as UTF-8, and bytes that are not UTF-8 raise an error, as
# data.decode("utf-8") does: a corrupt file is not counted. Decoded with errors="replace" (or "ignore"), the counts hold a
# U+FFFD, or lose bytes, that the file does not hold, and training goes on over them. Each invalid sequence below, in a
# range drawn from the grading's seed, beside the same file with a valid character of as many bytes in its place, which
# must be counted: only a decode tells the two files apart, not their shape.
NOT_UTF8 = [(b"\xff", "!"), (b"\x80", "!"), (b"\xc3(", "é"), (b"\xc0\xaf", "é"), (b"\xed\xa0\x80", "€"),
            (b"\xf4\x90\x80\x80", "🙂"), (b"\xe2\x82", "é")]
NOT_UTF8_WHY = {b"\xff": "a byte no UTF-8 holds", b"\x80": "a continuation byte alone",
                b"\xc3(": "a 2-byte character's first byte before ASCII", b"\xc0\xaf": "an overlong encoding of '/'",
                b"\xed\xa0\x80": "a surrogate (U+D800)", b"\xf4\x90\x80\x80": "a code point past U+10FFFF",
                b"\xe2\x82": "a 3-byte character cut after 2"}
RAISED_ON_NOT_UTF8 = ("UnicodeDecodeError", "ValueError")  # the reference's ValueError names the file and the offset


def not_utf8_hint(name: str, data: bytes, start: int, end: int, special_tokens: list[str], got: object) -> str:
    """What a range of bytes that are not UTF-8 counted instead of raising means: decoded with errors="replace" or
    "ignore", or otherwise leniently."""
    for errors in ("replace", "ignore", "backslashreplace"):
        if got == count_pretokens(data[start:end].decode("utf-8", errors), special_tokens):
            return (f"these are the counts of the range decoded with errors={errors!r}: a range that is not UTF-8 is a "
                    "corrupt file, not text to guess at; decode strictly, data.decode('utf-8'), which raises "
                    "UnicodeDecodeError")
    return f"{name} must raise on bytes that are not UTF-8 (data.decode('utf-8') does), not count them"


def verify_not_utf8(learner: Callable, task: Task = COUNT_CHUNK_TASK) -> None:
    """Task 2 decodes the range as UTF-8 and raises on bytes that are not: for each of :data:`NOT_UTF8`'s invalid
    sequences, in a file of words drawn from the grading's seed, the range that holds it must raise a ValueError
    (UnicodeDecodeError is one), and the same file with a valid character of as many bytes in its place must be counted
    as the reference counts it. (Lab 10's count_range, the same map, is checked so too: ``task``.)"""
    rng = measured_random(f"{task.name}:not utf-8")
    words = [" the", " cat", "a", "é", "!", " 42", "\n", "字"]
    checked = 0
    for bad, good in rng.sample(NOT_UTF8, 3):
        before = EOT.join("".join(rng.choices(words, k=rng.randint(1, 5))) for _ in range(rng.randint(1, 3))) + EOT
        inside, after = ("".join(rng.choices(words, k=rng.randint(0, 4))) for _ in range(2))
        prefix = (before + inside).encode("utf-8")
        end = len(prefix) + len(bad) + len(after.encode("utf-8"))
        twin = prefix + good.encode("utf-8") + after.encode("utf-8")
        assert len(good.encode("utf-8")) == len(bad)
        data = prefix + bad + after.encode("utf-8")
        files = [data + (EOT + "tail").encode("utf-8"), twin + (EOT + "tail").encode("utf-8")]
        start = len(before.encode("utf-8"))
        for file in (files[1], files[0]) if rng.random() < 0.5 else files:  # the twin first or second: no order tells
            case = Case((CorpusFile(file), start, end, [EOT]))
            call = f"{task.name}(<a file of {len(file)} bytes>, {start}, {end}, [{EOT!r}]) (its range: {file[start:end]!r})"
            outcome = call_task(task, learner, case.args)
            if file is files[1]:  # valid UTF-8: counted as the reference counts it
                expected = count_pretokens(file[start:end].decode("utf-8"), [EOT])
                got = None if outcome.error is not None else outcome.value[1]
                if outcome.error is not None or not answers_right(expected, got):
                    what = (f"raised {error_name(outcome.error)}: {str(outcome.error)[:120]}" if outcome.error is not None
                            else f"returned {short_repr(got, 120)}")
                    raise CheckFailed(f"{call} {what}\n  expected: {short_repr(expected, 200)} (the range is valid UTF-8)")
                continue
            if outcome.error is None:
                got = outcome.value[1]
                raise CheckFailed(
                    f"{call} returned {short_repr(got, 120)}: expected a UnicodeDecodeError (or a ValueError), as the "
                    f"reference raises: the range holds {bad!r}, {NOT_UTF8_WHY[bad]}, which is not UTF-8.\n  hint: "
                    + not_utf8_hint(task.name, file, start, end, [EOT], got))
            if error_name(outcome.error) == "NotImplementedError":
                raise CheckFailed(f"{task.name} is not written yet: it still raises NotImplementedError")
            if error_name(outcome.error) not in RAISED_ON_NOT_UTF8:
                raise CheckFailed(f"{call} raised {error_name(outcome.error)}: {str(outcome.error)[:120]}\n  expected: a "
                                  f"UnicodeDecodeError (or a ValueError): the range holds {bad!r}, {NOT_UTF8_WHY[bad]}")
            checked += 1
    passed(f"{task.name}: raises on {checked} ranges that are not UTF-8, and counts the same files made valid.")


# Task 2's hidden test: the bytes it reads measured first, then generated files and ranges, then ranges not UTF-8.
COUNT_CHUNK = TaskGraders(
    COUNT_CHUNK_TASK,
    count_chunk,
    [
        Case((CorpusFile(b"one<|endoftext|>two<|endoftext|>three"), 3, 19, [EOT])),
        Case((CorpusFile(b"low low lower"), 0, 13, [EOT])),
        Case((CorpusFile("café<|endoftext|> café".encode()), 5, 24, [EOT])),
        Case((CorpusFile(b"abc"), 1, 1, [EOT])),  # an empty range
        # 4,203 bytes, a character of 3 across byte 4,096: the range is decoded whole, not block by block
        Case((CorpusFile(("語" * 1400 + EOT + "!").encode()), 0, 4214, [EOT])),
    ],
    chunk_inputs(),
    max_examples=100,
    hidden_verify=(verify_chunk_reads,),
    hidden_then=verify_decoded_whole,
)


# ---- task 3: the reduce ----------------------------------------------------------------------

def in_a_new_dict(function: Callable, *args) -> dict:
    """A driver: ``function(*args)``, and whether what it returned is a new dict, none of the dicts it was given (in a list,
    lab 03's chunks, or each an argument, lab 10's two sides): one of them returned as the sum (the others empty, or the
    only one) is the caller's dict still, which a later change of the sum would change too ("build a new one")."""
    result = function(*args)
    given = [item for arg in args for item in (arg if isinstance(arg, list) else [arg])]
    return {"counts": result, "a new dict": all(result is not item for item in given)}


in_a_new_dict.passes_arguments = True  # the function gets the case's arguments as they are


def once_in_a_new_dict(function: Callable, counts: list) -> dict:
    """A driver: :func:`in_a_new_dict`'s report, and what ``function`` returns given copies of the chunks as an iterator,
    which can be read once, as task 4 hands over ``pool.map``'s: a merge_counts that reads them twice (the keys, then the
    sums) found nothing the second time, and its task 4 returned ``{}``. The list first, so that its messages and hints
    come first; the copies so that the second call sees the chunks as they were given (a generator, not ``iter``)."""
    copies = [{**chunk} for chunk in counts]  # before the first call, which may change the chunks
    result = function(counts)
    try:
        once = function(chunk for chunk in copies)
    except Exception as error:  # noqa: BLE001 (told as an answer: the call on the list, and its hints, come first)
        once = f"raised {error.__class__.__name__}"
    return {"counts": result, "a new dict": all(result is not chunk for chunk in counts), "given as an iterator": once}


once_in_a_new_dict.passes_arguments = True


def merge_counts_hint(args: tuple, expected: object, got: object) -> str | None:
    if isinstance(got, dict) and got.get("a new dict") is False and got.get("counts") == expected.get("counts"):
        return ("the right counts, but in one of the chunks' dicts itself (a single chunk, or the others empty?): the caller "
                "still holds the chunks, and a change of the total would change that chunk; build a new dict even then")
    if isinstance(got, dict) and got.get("counts") == expected.get("counts") and "given as an iterator" in expected:
        return ("the right counts from a list, not from an iterator (task 4 hands over pool.map's, which can be read "
                "once): does your code go over counts twice, or take len() or counts[0]? Add each chunk in one pass")
    return None


def twice_hint(args: tuple, expected: object, got: object) -> str | None:
    counts = args[0] if type(args[0]) is list and args[0] and all(type(c) is dict for c in args[0]) else None
    if counts and isinstance(expected, dict) and got != expected and got == dict(Counter(expected) + Counter(counts[0])):
        return ("the first chunk is counted twice: a total that starts from the first chunk's counts adds the others "
                "only; start from an empty total and add every chunk once")
    return None


def no_chunks_hint(args: tuple, error: BaseException) -> str | None:
    if args and args[0] == [] and error_name(error) == "IndexError":
        return ("no chunks, nothing to add: the total of no counts is {}; start from an empty total (counts[0] is no "
                "chunk when the list is empty) and add every chunk to it")
    return None


# The caller still holds the chunks' counts: adding into the first dict would change them, and so would a later change of
# a total that is one of them (returned as it is when it is the only one, or the others are empty): the hidden test's
# second part calls it on such lists, after the first (whose messages stay those of the counts), handed over as an
# iterator as task 4 hands over pool.map's (once_in_a_new_dict): each of them holds counts, so a merge_counts that reads
# its argument twice returns {} on every one.
def merge_counts_task(**driven) -> Task:  # (no dataclasses.replace: task 4's driver ships the module's imports, and
    # their reads in the worker are task 4's calling process's, which it measures)
    return Task("merge_counts", ("counts",), what="a dict mapping pretokens (bytes) to their total counts",
                provided=PROVIDED, unchanged=(0,), **driven)


ONE_FULL_CHUNK = st.tuples(st.dictionaries(st.sampled_from([b"a", b" the", b"\xc3\xa9"]), st.integers(1, 9), min_size=1),
                           st.booleans(), st.integers(0, 2)).map(
    lambda drawn: ([drawn[0]] if drawn[1] else [{}] * drawn[2] + [drawn[0], {}],))  # alone, or among empty chunks

MERGE_COUNTS = TaskGraders(
    merge_counts_task(hint=twice_hint, error_hint=no_chunks_hint),
    merge_counts,
    [
        ([{b"low": 2, b" low": 1}, {b" low": 3}],),
        ([],),
        ([{b"a": 1}, {}, {b"a": 1, b"b": 5}],),
    ],
    chunk_counts_dicts().map(lambda counts: (counts,)),
    max_examples=100,
    then=TaskGraders(merge_counts_task(driver=once_in_a_new_dict, hint=merge_counts_hint), merge_counts, [],
                     ONE_FULL_CHUNK, max_examples=12),
    hidden_then=lambda learner: MERGE_COUNTS_COST.verify(learner),  # declared below: it measures this task
)

# ---- task 3's cost: each chunk added into one total ---------------------------------------------------------------------
# A total rebuilt for each chunk (sum(map(Counter, counts), Counter()), or total = total + Counter(chunk)) gives the right
# counts and copies the whole total at each chunk: quadratic in the chunks, where a corpus cut for many workers has
# hundreds. The graded lists hold a few chunks, and it kept every point (walk62: 400 chunks of 1,000 pretokens, 19 s where
# the reference takes 0.1 s). So the hidden test ends by timing one reduce of MERGE_CHUNKS chunks of MERGE_CHUNK_KEYS
# pretokens or more (drawn), nearly all distinct, built in the worker (a driver) and handed over as an iterator. In this
# process, with the build: the reference 0.18 s, a loop over dict.get 0.16 s, a Counter added in place (+=, which scans
# the total for counts of 0 at each chunk) 0.52 s, the total rebuilt at each chunk 5.4 s; bound 0.3 s + 5 times the
# reference's.
MERGE_CHUNKS, MERGE_CHUNK_KEYS = 200, 1_000


def sum_of_drawn_chunks(function: Callable, seed: bytes, chunks: int, keys: int) -> list:
    """``chunks`` count dicts of ``keys`` pretokens each, drawn from ``seed``, nearly all distinct, added up by
    ``function`` (a ``merge_counts``; a driver) from a list, then from an iterator (a method that tells them apart and is
    slow on either pays for it: walk62's red team): each total's size and total count."""
    import random  # (the driver is shipped with its own imports)

    rng = random.Random(seed)
    counts = [{b" " + rng.randbytes(5).hex().encode(): rng.randint(1, 9) for _ in range(keys)} for _ in range(chunks)]
    totals = [function(list(counts)), function(chunk for chunk in counts)]
    return [[len(total), sum(total.values())] for total in totals]


def reference_sum_of_drawn_chunks(seed: bytes, chunks: int, keys: int) -> list:
    """The reference's ``merge_counts`` on :func:`sum_of_drawn_chunks`'s driver, in this process."""
    return sum_of_drawn_chunks(merge_counts, seed, chunks, keys)


MERGE_COUNTS_COST = MeasuredCost(
    task=merge_counts_task(driver=sum_of_drawn_chunks),
    reference=reference_sum_of_drawn_chunks, spread=COST_SPREAD, warm_up=2,
    build=lambda index, scale: (measured_random(f"03_parallel:merge_counts:{index}").randbytes(16),
                                round(MERGE_CHUNKS * scale), MERGE_CHUNK_KEYS),
    shape=f"<{MERGE_CHUNKS} to {COST_SPREAD * MERGE_CHUNKS:.0f} chunks of {MERGE_CHUNK_KEYS:,} pretokens (drawn), nearly "
          "all distinct, as a list, then as an iterator>",
    factor=5.0, slack=0.3, timeout=10.0, cases=lambda: MERGE_COUNTS.cases, cases_of=(MERGE_COUNTS.task, merge_counts),
    too_slow="add each chunk into one total, in place (total.update(chunk) on a Counter, or total[key] = total.get(key, "
             "0) + count): a new total for each chunk (sum(map(Counter, counts), Counter()), total = total + "
             "Counter(chunk)) copies all the counts so far at each chunk, quadratic in the chunks",
    said=lambda cost, name: cost.said(f"{name}: {MERGE_CHUNKS} chunks or more of {MERGE_CHUNK_KEYS:,} pretokens in "))

# ---- task 4: all of it, in worker processes -------------------------------------------------


def serial_count(path: str, special_tokens: list[str], num_workers: int, chunks_per_worker: int = 1,
                 start_method: str | None = None) -> dict[bytes, int]:
    """What task 4 must return whatever the workers: the serial count of the whole file. (The
    reference's own pool cannot run here: its workers would import the graders' private copy.)"""
    return count_pretokens(read_corpus(path), special_tokens)


def pool_hint(args: tuple, expected: object, got: object) -> str | None:
    newline = newline_hint(expected, got)
    if newline:
        return newline
    special = [token.encode("utf-8") for token in args[1]] if len(args) > 1 and isinstance(args[1], list) else []
    pieces = isinstance(got, dict) and any(k in t and k != t for k in got for t in special if len(k) > 1)
    if pieces and len(args) > 2 and args[2] == 1:
        return ("pretokens made of pieces of a special token: with one worker the whole file is counted here (step 1), "
                "and that count cuts at the special tokens too: count_pretokens(text, special_tokens)")
    if pieces:
        return ("pretokens made of pieces of a special token: pass special_tokens on to count_chunk, so that each chunk "
                "splits them off before the regex runs")
    if isinstance(got, dict) and isinstance(expected, dict) and sum(got.values()) > sum(expected.values()):
        return "more pretokens than the file holds: do two chunks overlap? Each range is [start, end) of consecutive boundaries"
    if isinstance(got, dict) and isinstance(expected, dict) and sum(got.values()) < sum(expected.values()):
        return "fewer pretokens than the file holds: is a chunk left out (the last one, up to the file's size)?"
    return None


# The reference's count_chunk, as the source of a module: task 4's workers import count_chunk by its
# module's name, so a stand-in for it must be a module file they can import (see with_reference_count_chunk).
REFERENCE_CHUNK_MODULE = "_grader_chunk_counting"
REFERENCE_CHUNK_SOURCE = '''"""The reference's count_chunk, put in place of yours by the grader while task 4 is graded."""
from bpe_ref.corpus import decode_utf8
from bpe_ref.pretokenize import count_pretokens


LOCKSTEP = None  # (folder, workers, chunks, the call's time.monotonic()) in a measured call: the chunks taken in turn
_slot, _calls, _alone = None, 0, False


def _in_turn():
    """Wait (once: a process whose wait ran out, given all the chunks, waits no more) until each of the first workers
    has begun as many chunks as this one, less one, or every chunk is begun: so no worker of a pool counts most of the
    file while another is still starting, whatever the machine's load, and what each worker reads is its share
    (measured from outside, the grader's only concern). The wait: 30 s, or twice what this process took to come here
    from the call's start if more (its sibling, started with it, starts as slowly: the start of a pool of 2 spawned
    workers took 16 s here with the grading at SCHED_IDLE beside load 17-26, 3 s at nice 10; it grows with the load),
    at most 200 s (a pool fed one chunk at a time, whose other worker never starts, waits that long once, within the
    call's backstop of waiting)."""
    global _slot, _calls, _alone
    import os
    import time
    folder, workers, chunks, called = LOCKSTEP
    for slot in range(chunks if _slot is None else 0):  # this process's slot, the first free one
        try:
            os.close(os.open(os.path.join(folder, f"{slot}.0"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        _slot = slot
        break
    _calls += 1
    os.close(os.open(os.path.join(folder, f"{_slot}.{_calls}"), os.O_CREAT | os.O_WRONLY | os.O_NONBLOCK))  # (a fifo: no wait)
    begun = [0] * chunks
    now = time.monotonic()
    deadline = now + min(max(30.0, 2 * (now - called)), 200.0)
    while not _alone and time.monotonic() < deadline:
        for slot in range(chunks):
            while os.path.exists(os.path.join(folder, f"{slot}.{begun[slot] + 1}")):
                begun[slot] += 1
        if min(begun[:workers]) >= _calls - 1 or sum(begun) >= chunks:
            return
        time.sleep(0.005)
    _alone = True


def count_chunk(path, start, end, special_tokens):
    if LOCKSTEP is not None:
        _in_turn()
    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    return count_pretokens(decode_utf8(data, str(path), offset=start), special_tokens)
'''


def with_chunks_in_turn(function: Callable, *args: object) -> object:
    """:func:`with_reference_count_chunk` whose ``count_chunk`` makes the pool's workers take the chunks in turn
    (``_in_turn`` in :data:`REFERENCE_CHUNK_SOURCE`), for the call whose reads are measured (task 4)."""
    return with_reference_count_chunk(function, *args, in_turn=True)


def with_reference_count_chunk(function: Callable, *args: object, in_turn: bool = False) -> object:
    """Call ``function(*args)`` (a ``count_pretokens_in_file``) with the reference's ``count_chunk`` in place of the
    learner's (a driver, :attr:`.core.Task.driver`), so that a bug in task 2 costs task 2 only. The workers import
    ``count_chunk`` by its module's name, so the stand-in is a module written next to the learner's
    ``chunk_counting.py`` (or in the current folder when ``count_chunk`` was defined in a cell), bound in ``function``'s
    globals for the call, then removed; bound too where the notebook has no ``count_chunk`` (its module failed to
    import): that mistake costs task 2, not task 4 too."""
    import importlib
    import os
    import sys
    import time

    namespace = getattr(function, "__globals__", None)
    learners = namespace.get("count_chunk") if isinstance(namespace, dict) else None
    home = getattr(sys.modules.get(getattr(learners, "__module__", None) or ""), "__file__", None)
    # Next to the learner's module; else (count_chunk defined in a cell) in the current folder, when
    # it is on the path (the grading worker's scratch folder, a notebook's folder).
    folder = os.path.dirname(os.path.abspath(home)) if home else (
        os.getcwd() if "" in sys.path or os.getcwd() in sys.path else None)
    if getattr(function, "is_reference", False) or not isinstance(namespace, dict) or folder is None:
        return function(*args)
    path = os.path.join(folder, REFERENCE_CHUNK_MODULE + ".py")
    turns = os.path.join(folder, f"{REFERENCE_CHUNK_MODULE}_turns")
    lockstep = (turns, args[2], args[2] * args[3], time.monotonic()) if in_turn else None

    def clear_turns() -> None:  # (no shutil: its imports are reads of the calling thread, which task 4 measures)
        for name in os.listdir(turns) if os.path.isdir(turns) else ():
            os.remove(os.path.join(turns, name))

    if in_turn:
        clear_turns()
        os.makedirs(turns, exist_ok=True)
    with open(opened_regular(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "w", encoding="utf-8") as file:
        file.write(REFERENCE_CHUNK_SOURCE.replace("LOCKSTEP = None", f"LOCKSTEP = {lockstep!r}"))
    importlib.invalidate_caches()
    sys.modules.pop(REFERENCE_CHUNK_MODULE, None)
    try:
        namespace["count_chunk"] = importlib.import_module(REFERENCE_CHUNK_MODULE).count_chunk
        return function(*args)
    finally:
        if learners is None:
            namespace.pop("count_chunk", None)
        else:
            namespace["count_chunk"] = learners
        sys.modules.pop(REFERENCE_CHUNK_MODULE, None)
        try:
            os.remove(path)
            if in_turn:
                clear_turns()
                os.rmdir(turns)
        except OSError:
            pass


serial_count.is_reference = True  # the driver calls the reference as it is

SPAWN_HINT = ("a worker started by spawn (or forkserver) imports the function it runs by its module's name, and a "
              "function defined in a notebook cell lives in __main__, which the worker cannot import; count_chunk "
              "must come from chunk_counting.py")


def spawn_hint(args: tuple, error: BaseException) -> str | None:
    text = f"{error_name(error)}: {error}"
    return SPAWN_HINT if any(word in text for word in ("Pickl", "AttributeError", "BrokenProcessPool", "__main__")) else None


FILE_TASK = Task("count_pretokens_in_file", ("path", "special_tokens", "num_workers", "chunks_per_worker", "start_method"),
                 what="a dict mapping pretokens (bytes) to counts", hint=pool_hint, provided=PROVIDED,
                 stand_ins=(find_chunk_boundaries, merge_counts), driver=with_reference_count_chunk, error_hint=spawn_hint,
                 unchanged=(1,))  # special_tokens (the statement says so): sorted in place, longest first, kept every point
                 # (walk58)


def file_cases() -> list[Case]:
    text = "".join(f"Story {i}: the cat sat on the mat, café 字 🙂.{EOT}" for i in range(60))
    return [
        Case((CorpusFile(text.encode()), [EOT], 2, 1, "spawn")),
        Case((CorpusFile(text.encode()), [EOT], 3, 2, None)),
        Case((CorpusFile(text.encode()), [EOT], 1, 1, None)),
        Case((CorpusFile(b"no special token: one chunk"), [EOT], 2, 1, "spawn")),
        Case((CorpusFile(b"a<|pad|>b<|endoftext|>c<|pad|>d " * 20), [EOT, PAD], 2, 2, "spawn")),
    ]


# Fixed hidden inputs: no special tokens with several workers (no safe cut: the whole file, counted here), which the
# generated files have one time in three too (file_count_inputs); its lines end in \r\n, which a whole file read in
# text mode turns into \n.
# A special token that is not ASCII ("the special tokens encoded as UTF-8"): the tokens encoded as ASCII (or as
# Latin-1, cutting nowhere at it) kept their points where every token of the tests was ASCII (learner48). Stories that
# end in EOT, so that varied_file draws a run of them as it does of the TinyStories sample's; the cheapest start method.
# One worker with a special token that occurs: step 1's serial count must cut at it too. Only a generated file with
# one worker and its special token in the text reached that before (the visible test's one-worker case is not hidden):
# a serial count given no special tokens kept the hidden points under secret seeds 0 and 2 of 8 (novel49).
NOT_ASCII_TOKEN = "<|fin→|>"
FILE_HIDDEN_CASES = [
    Case((CorpusFile("the cat sat on the mat, café 字 🙂.\r\n".encode() * 40), [], 3, 2, "spawn")),
    Case((CorpusFile("".join(f"Story {i}: a cat{NOT_ASCII_TOKEN} sat, café 字 🙂.{NOT_ASCII_TOKEN}\n{EOT}"
                             for i in range(12)).encode()), [EOT, NOT_ASCII_TOKEN], 2, 2, START_METHODS[-1])),
    Case((CorpusFile("".join(f"Story {i}: the cat sat on the mat.{EOT}" for i in range(30)).encode()), [EOT], 1, 2, None)),
]


def varied_file(args: tuple, rng) -> tuple:
    """A fixed hidden case of task 4 drawn again from ``rng`` (``hidden_vary``), as a table of the public cases' answers
    misses it. Without special tokens: lines of drawn words, none a special token, counted by 2 to 4 workers (still no
    safe cut: the whole file, here). With them (the TinyStories sample): a drawn run of its stories, cut where one ends,
    by 2 to 4 workers, or by one where the case had one (step 1's serial count, which must cut at the special tokens
    too: novel49); chunks per worker and the start method drawn."""
    file, special_tokens, num_workers, _, _ = args
    if special_tokens:
        stories = file.data.split(EOT.encode())
        first = rng.randrange(len(stories) // 2)
        data = EOT.encode().join(stories[first:first + rng.randint(len(stories) // 4, len(stories) // 2)])
    else:
        words = [" the", " cat", " sat", " on", " mat", ",", ".", " café", " 字", " 🙂", " dog", " ran", "\n", "  "]
        data = "".join("".join(rng.choices(words, k=rng.randint(5, 12))) + "\n" for _ in range(rng.randint(30, 60))).encode()
    workers = rng.randint(2, 4)  # drawn even for one worker, so that the later draws stay those of every seed before
    return CorpusFile(data), special_tokens, 1 if num_workers == 1 else workers, rng.randint(1, 3), rng.choice(START_METHODS)


def chunks_asked(function: Callable, *args: object) -> tuple[list, list]:
    """Call ``function(*args)`` (a ``count_pretokens_in_file``, through :func:`with_reference_count_chunk`) and return
    the ``desired_num_chunks`` and the sorted ``split_tokens`` (``None`` if not a list of bytes) of each of its calls of
    ``find_chunk_boundaries`` (a driver: the reference's stand-in, watched in ``function``'s globals). The call runs as
    on a machine of 8 cores (``os.cpu_count``), so that a pool of the default size starts more than ``num_workers``."""
    import os

    cores = {name: getattr(os, name) for name in ("cpu_count", "process_cpu_count") if hasattr(os, name)}
    namespace = function.__globals__
    original = namespace.get("find_chunk_boundaries")
    asked: list = []
    split: list = []

    def watched(*call_args, **kwargs):
        asked.append(kwargs.get("desired_num_chunks", call_args[1] if len(call_args) > 1 else None))
        tokens = kwargs.get("split_tokens", call_args[2] if len(call_args) > 2 else None)
        bytes_only = isinstance(tokens, (list, tuple)) and all(type(token) is bytes for token in tokens)
        split.append(sorted(tokens) if bytes_only else None)
        return original(*call_args, **kwargs)

    namespace["find_chunk_boundaries"] = watched
    for name in cores:
        setattr(os, name, lambda: 8)
    try:
        with_reference_count_chunk(function, *args)
    finally:
        namespace["find_chunk_boundaries"] = original
        for name, count in cores.items():
            setattr(os, name, count)
    return [n if type(n) is int else -1 for n in asked], split


WORKER_KINDS = ("spawn", "forkserver", "fork")


def calling_thread(pid: int) -> str:
    """The thread that calls the learner's function, as ``/proc`` names it (``PID/task/TID``): the grading worker's
    main thread, or this one in a notebook. Its own reads leave out the workers' (their processes are reaped into
    the process's count) and the watch's reads of /proc (a thread of this process in a notebook)."""
    tid = threading.get_native_id() if pid == os.getpid() else pid
    return f"{pid}/task/{tid}"


def default_start_method_probe(function: Callable) -> None:
    """Start one process of Python's default context (``multiprocessing.Process``, no method named) and wait for it: a
    driver that leaves ``function`` alone, so that a watch tells from outside which method the default is now."""
    import multiprocessing
    import time

    process = multiprocessing.Process(target=time.sleep, args=(0.1,))
    process.start()
    process.join()


def verify_default_left_alone(learner: Callable, call: str, method: str) -> None:
    """After ``call`` (by ``method``, not Python's default), a process started with no method named must start by the
    default: ``multiprocessing.set_start_method(method, force=True)`` gives the call's pool its method and every later
    one of the caller's too (walk60: it kept every point)."""
    pid = process_id(learner)
    forks = learner.sandbox.processes_started if runs_remotely(learner) else None
    with ProcessWatch(pid, forks=forks) as watch:
        outcome = call_task(FILE_TASK, learner, (), default_start_method_probe)
    outcome.fail_on_error(f"a process started after {call}")
    started = watch.start_methods()
    if started.get(method) and not started.get(DEFAULT_START_METHOD):
        raise CheckFailed(
            f"after {call}, a process started with no method named (multiprocessing.Process) started by {method}, not by "
            f"Python's default, {DEFAULT_START_METHOD} (measured from outside your code): the call changed the default of "
            "the whole process, as multiprocessing.set_start_method(start_method, force=True) does, so that every later "
            "pool of the caller's starts by that method too. Give this pool alone its method: "
            "ProcessPoolExecutor(..., mp_context=multiprocessing.get_context(start_method))")


def verify_worker_processes(learner: Callable) -> None:
    """Task 4's method, measured from outside the learner's process (:mod:`..trusted.measure_worker`):
    with 2 workers and 3 chunks each, for every start method, the call must start worker processes
    (not threads), by that start method, no more than 2 of them, and cut the file into 6 chunks."""
    text = "".join(f"Story {i}: the cat sat on the mat, café 字 🙂. " * 8 + EOT for i in range(700))
    data = CorpusFile(text.encode("utf-8"))
    num_workers, chunks_per_worker = 2, 3
    if not measure_available():
        passed("count_pretokens_in_file: its worker processes were not measured (this system has no /proc).")
        return
    special_tokens = [EOT, PAD]  # the text holds EOT only: the cuts are the same at EOT alone, the tokens asked for are not
    # Python's default first, None last, after a method that is not the default: a call that set the default for the whole
    # process (set_start_method) is told by what None then starts, and by a process started after each of the others
    others = [method for method in START_METHODS if method != DEFAULT_START_METHOD]
    for method in (DEFAULT_START_METHOD, *others, None):  # None leaves the choice to Python: its default start method
        args = (data, special_tokens, num_workers, chunks_per_worker, method)
        call = (f"count_pretokens_in_file(<a file of {len(data.data)} bytes>, {special_tokens!r}, {num_workers}, "
                f"{chunks_per_worker}, {method!r})")
        # A ProcessPoolExecutor starts spawn and forkserver workers as tasks come (an idle one takes the next), so on a
        # busy machine a pool may start fewer than it may: fewer than num_workers, none included, is measured again,
        # twice (a pool of one process, or none, never starts more). None too: a look at /proc once missed the only
        # worker of a pool that submits its chunks one at a time (CI, spawn), and the keeper's count with it.
        for _ in range(3):
            pid = process_id(learner)
            forks = learner.sandbox.processes_started if runs_remotely(learner) else None
            with ProcessWatch(pid, forks=forks) as watch, reads_of(calling_thread(pid)) as reads:
                outcome = call_task(FILE_TASK, learner, args, chunks_asked)
            outcome.fail_on_error(call)
            started = watch.start_methods()
            # a process that ended between two looks at /proc (counted by the keeper) may have been a worker
            workers = sum(started.get(kind, 0) for kind in WORKER_KINDS + ("unseen",))
            if workers - watch.fork_servers() >= num_workers:
                break
        if reads["bytes"] is not None and reads["bytes"] > len(data.data) // 2:
            raise CheckFailed(
                f"{call} read {reads['bytes']} bytes in the calling process, of a file of {len(data.data)} (measured from "
                "outside your code, the workers' reads left out; the reference's find_chunk_boundaries reads a few "
                "buffers): send each worker its range (path, start, end) and let "
                "count_chunk read it; reading the chunks here and sending their text copies the corpus through a pipe "
                "and holds it in one process (theory, section 3)")
        if workers == 0:
            raise CheckFailed(
                f"{call} started no process: the count ran in the calling process (threads share it, and the GIL lets "
                "one of them run Python at a time), or it was answered from an earlier call's counts (a cache by path: "
                "the file at a path can change between calls, count it each time). Map count_chunk over the ranges in a "
                "ProcessPoolExecutor whose mp_context is multiprocessing.get_context(start_method)")
        if not started.get(method or DEFAULT_START_METHOD) and not started.get("unseen"):
            how = ", ".join(f"{n} by {kind}" for kind, n in started.items() if kind in WORKER_KINDS)
            raise CheckFailed(
                f"{call} started its processes {how}, none by {method or DEFAULT_START_METHOD}: pass "
                "mp_context=multiprocessing.get_context(start_method) to the ProcessPoolExecutor" + (
                    "; start_method=None leaves the choice to Python (get_context(None) is its default, "
                    f"{DEFAULT_START_METHOD} here), not to a method of your own" if method is None else ""))
        if workers - watch.fork_servers() < num_workers:
            raise CheckFailed(
                f"{call} started {workers - watch.fork_servers()} worker process(es) for {num_workers} workers (measured "
                "from outside your code): the chunks go to a pool of num_workers processes, all given chunks at once "
                "(pool.map), so that they count in parallel; one process counting the chunks, or the whole file, in turn "
                "is a serial count in another process")
        allowed = num_workers + (1 if (method or DEFAULT_START_METHOD) == "forkserver" else 0)  # the fork server itself, when it starts
        if workers > allowed:
            raise CheckFailed(f"{call} started {workers} processes for {num_workers} workers (measured as on a machine of "
                              "8 cores): a pool of num_workers processes (max_workers=num_workers), not one process per "
                              "chunk, nor the default of one per core")
        running = sum(watch.still_running().get(kind, 0) for kind in WORKER_KINDS)
        if running:
            raise CheckFailed(
                f"{call} returned with {running} of its worker processes still running (measured from outside your "
                "code): shut the pool down before you return, with ProcessPoolExecutor(...) as pool: (the end of the "
                "with block waits for the workers); a pool left open keeps its processes until it is garbage-collected")
        asked, split = outcome.value[1]
        if asked != [num_workers * chunks_per_worker]:
            said = "never called find_chunk_boundaries" if not asked else f"asked find_chunk_boundaries for {asked} chunks"
            raise CheckFailed(f"{call} {said}: cut the file into num_workers * chunks_per_worker = "
                              f"{num_workers * chunks_per_worker} chunks, once")
        every_token = sorted(token.encode("utf-8") for token in special_tokens)
        if [None if tokens is None else list(tokens) for tokens in split] != [every_token]:
            raise CheckFailed(f"{call} asked find_chunk_boundaries to cut at {split[0]!r}, not at every special token "
                              f"{every_token!r}: pass all of special_tokens, encoded as UTF-8 "
                              "([token.encode('utf-8') for token in special_tokens]); a cut only at some of them leaves "
                              "long chunks where the others are the only tokens")
        if method not in (None, DEFAULT_START_METHOD):
            verify_default_left_alone(learner, call, method)
    verify_one_worker_counts_here(learner, data)
    verify_counted_in_the_workers(learner)
    verify_each_worker_reads_its_chunks(learner)
    passed(f"count_pretokens_in_file: {num_workers} worker processes, started by {', '.join(START_METHODS)} and by Python's default, and "
           f"{num_workers * chunks_per_worker} chunks, counted in them; none with one worker (measured from outside its "
           "process).")


# The CPU time the calling process may spend on a count in workers, against the serial count of the same file by the
# reference: finding the cuts, starting the pool and merging the chunks' counts (the taught pool: 0.02 s where the
# serial count takes 0.3 s, in the grading worker on a loaded machine), not the count itself (threads counting
# beside a pool for show: 0.38 s, against a limit of 0.2 s).
OWN_SHARE, OWN_SLACK = 0.5, 0.03


def counting_text(rng) -> str:
    """A text of some 3 MB drawn from ``rng`` (the grading's secret seed): stories of words, numbers and multi-byte
    characters between end-of-text tokens, so that no table of a fixed text's counts answers it. Long enough that the
    serial count takes 0.2-0.4 s, far more than /proc's 10 ms ticks (a third of it let threads counting pass now and
    then: redteam section 20). 10,000 stories, not 5,000: on a faster machine (2026-11-30, load 6 to 8) the serial
    count of 5,000 took 0.115 s and threads counting spent 0.13 s, 1.49 times the limit (0.087 s)."""
    words = [" the", " cat", " sat", " on", " mat", ",", ".", " café", " 字", " 🙂", " dog", " ran", "\n"]
    stories = []
    for _ in range(10_000):
        body = "".join(rng.choice(words) for _ in range(rng.randint(60, 100)))
        stories.append(f"Story {rng.randint(0, 10**6)}:{body}{EOT}")
    return "".join(stories)


def verify_counted_in_the_workers(learner: Callable) -> None:
    """Task 4's count happens in the worker processes: the calling process (its threads included, its child
    processes not) spends well under what the serial count of the file costs, and the counts are right. Worker
    processes started for show while threads of the calling process count passed the checks above, which see only
    which processes start (tests/test_grading_redteam.py, section 20)."""
    text = counting_text(measured_random("03_parallel:counted_in_the_workers"))
    # this thread's CPU time (not the pipe readers', which the worker's output keeps busy), the fastest run so far
    serial, expected = reference_cost(count_pretokens, (text, [EOT]), "the text of counting_text")
    data = CorpusFile(text.encode("utf-8"))
    call = f"count_pretokens_in_file(<a file of {len(data.data)} bytes>, [{EOT!r}], 2, 2)"
    pid = process_id(learner)
    before = cpu_seconds(pid, children=False)
    outcome = call_task(FILE_TASK, learner, (data, [EOT], 2, 2))
    after = cpu_seconds(pid, children=False)
    outcome.fail_on_error(call)
    if not answers_right(expected, outcome.value[1]):  # same types too: counts of 1.0 or True are no counts
        got = outcome.value[1]
        # learn52: the chunks' dicts put together by dict.update (or {**a, **b}): every pretoken, each with one chunk's count
        overwritten = (isinstance(got, dict) and got.keys() == expected.keys()
                       and all(type(got[key]) is int and 0 < got[key] <= expected[key] for key in got))
        raise CheckFailed(f"{call} did not return the pretoken counts of the file (they differ from a serial count)" + (
            f"\n  hint: every pretoken is there, but {sum(got[k] < expected[k] for k in got)} of {len(got)} with fewer "
            "occurrences than the file holds (one chunk's count): dict.update and {**a, **b} replace a count; add the "
            "chunks' counts up, with your merge_counts" if overwritten else ""))
    if before is None:
        return  # not measurable on this system (no /proc)
    # Run again now, the fastest of both kept: a burst of load made one run 1.5 times another, and the limit scales with it
    serial = reference_cost(count_pretokens, (text, [EOT]), "the text of counting_text")[0]
    if after is None:  # its process ended as the call returned, so as to be measured not at all
        raise CheckFailed(f"{call}: the process running your code ended as the call returned, so its CPU time could not "
                          "be measured from outside your code (a function must leave it running)")
    most = OWN_SHARE * serial + OWN_SLACK
    if after - before > most:
        raise CheckFailed(
            f"{call} spent {after - before:.2f} s of CPU time in the calling process (its threads included, its worker "
            f"processes not; measured from outside your code), where counting the whole file takes {serial:.2f} s: the "
            "count ran here, not in the workers. Threads share one process, and the GIL lets one of them run Python at "
            "a time: map count_chunk over the ranges in the ProcessPoolExecutor, and only merge the counts here")


# Task 4's measured reads: 2 workers, 8 chunks each (taken in turn: a worker begins at most 9 of the 16), of a 4 MiB file.
# Each worker process may read at most this share of the file (the taught pool's busiest, a spawned or forkserver
# worker with the imports that follow its start: 0.5 to 0.8); the calling process a quarter.
TURNS, SHARE_MOST = 8, 0.9


def verify_each_worker_reads_its_chunks(learner: Callable) -> None:
    """Task 4's rule "each worker reads its chunks; no process reads the whole file", measured from outside the
    learner's processes by the grading worker's keeper: for every start method, on a fresh 4 MiB file with 2 workers and
    16 chunks taken in turn (:func:`with_chunks_in_turn`), what each process read (``rchar`` as it ended, less its
    start-up after an exec, plus what it mapped; a live one's growth, less what it reaped) must be under
    ``SHARE_MOST`` of the file, the calling process's under a quarter, every process that ended must have ended by
    ``exit_group`` (one killed by a signal leaves its count to its reaper), and the answer must be the reference's. A
    serial count in one worker beside processes for show passed every check of the processes (redteam section 30)."""
    box = learner.sandbox if runs_remotely(learner) else None
    if box is None or box.process_ends() is None:
        passed("count_pretokens_in_file: what each worker read was not measured (no keeper sees processes end here).")
        return
    keeper, main = keeper_id(learner), process_id(learner)
    shares = []
    for method in START_METHODS:
        # Measured again once, on a fresh file, where one process read the most: a pool's second worker started late on
        # a busy machine, or a worker's end not yet seen as its reaper's count grew, made an honest pool's busiest
        # process read 0.9 of the file in one CI run (a class's batch); a count in one process reads it all every time.
        for attempt in (1, 2):
            data, expected = big_file(counted=True)
            args = materialized((CorpusFile(data), [EOT], 2, TURNS, method), learner)
            call = f"count_pretokens_in_file(<a file of {len(data)} bytes>, [{EOT!r}], 2, {TURNS}, {method!r})"
            ended, forks, mapped = box.process_ends()[0], box.processes_started(), mapped_bytes(learner)
            before = live_reads(keeper)
            outcome = call_task(FILE_TASK, learner, args, with_chunks_in_turn)
            after, ends, present = live_reads(keeper), box.process_ends(ended), set(_proc_table())
            forks_after, mapped_after = box.processes_started(), mapped_bytes(learner)
            measured_answer(FILE_TASK, serial_count, args, outcome, call, expected)
            if ends is None or None in (forks, forks_after, mapped, mapped_after, *before.values(), *after.values()):
                raise CheckFailed(f"{call}: what your processes read could not be measured from outside your code (too many "
                                  "processes ended, or one made itself unreadable, e.g. undumpable): leave the processes as "
                                  "Python starts them")
            unseen = len(before) + forks_after - forks - len(ends[1]) - len(after)
            if unseen > 0:
                raise CheckFailed(f"{call}: {unseen} of your processes ended without exiting (killed by a signal, measured "
                                  "from outside your code), so what they read cannot be told: let the workers end as the "
                                  "pool's shutdown ends them (with ProcessPoolExecutor(...) as pool:)")
            reads = {pid: counted for pid, _, _, counted in ends[1]}
            for pid, whole in after.items():  # a live process: what it read meanwhile, less what its reaped children read
                reaped = sum(read for child, parent, read, _ in ends[1] if parent == pid and child not in present)
                reads[pid] = max(reads.get(pid, 0), whole - before.get(pid, 0) - reaped)
            if mapped_after - mapped > len(data) // 4 or reads.get(main, 0) > len(data) // 4:
                raise CheckFailed(
                    f"{call} read or mapped {max(reads.get(main, 0), mapped_after - mapped)} bytes of a file of {len(data)} "
                    "in the calling process, or mapped them in any (measured from outside your code): send each worker its "
                    "range (path, start, end) and let count_chunk read it")
            most = max((pid for pid in reads if pid != main), key=reads.get, default=None)
            if most is not None and reads[most] >= SHARE_MOST * len(data):
                if attempt == 1:
                    continue
                raise CheckFailed(
                    f"{call}: one process read {reads[most]} bytes of the file's {len(data)} (each process's reads measured "
                    "from outside your code, as it ended), where 2 workers given 16 chunks in turn read about half each: the "
                    "file was counted in one process. Map count_chunk over every chunk's range in the pool (pool.map), so "
                    "that each worker reads and counts its chunks, none the whole file")
            break
        shares.append(f"{method} {reads.get(most, 0) / len(data):.2f}")
    passed(f"count_pretokens_in_file: each worker read its chunks, the most any process read of the file: {', '.join(shares)} "
           "(measured from outside).")


def verify_one_worker_counts_here(learner: Callable, data: CorpusFile) -> None:
    """Step 1 of task 4: with one worker the file is counted in the calling process, so the call starts no process
    (a pool of one process only adds its start-up and the copies of the counts). Measured as the workers are."""
    args = (data, [EOT], 1, 2, "spawn")
    call = f"count_pretokens_in_file(<a file of {len(data.data)} bytes>, [{EOT!r}], 1, 2, 'spawn')"
    with ProcessWatch(process_id(learner)) as watch:
        outcome = call_task(FILE_TASK, learner, args)
    outcome.fail_on_error(call)
    workers = sum(watch.start_methods().get(kind, 0) for kind in WORKER_KINDS)
    if workers:
        raise CheckFailed(
            f"{call} started {workers} process{'es' if workers > 1 else ''} (measured from outside your code): with one "
            "worker, count the whole file here with count_pretokens (step 1 of the task); a pool of one process costs its "
            "start-up and sends the counts back, for no parallel work")


def verify_file_not_utf8(learner: Callable) -> None:
    """Task 4's serial count (one worker, or no special tokens) decodes the whole file as UTF-8, as count_chunk decodes
    its range: a file that is not raises (the reference's read_corpus raises ValueError, the workers' count_chunk
    too). For two of :data:`NOT_UTF8`'s invalid sequences drawn from the grading's seed, in a file of drawn words, each
    serial path must raise a ValueError (UnicodeDecodeError is one), and the same file with a valid character of as many
    bytes in its place must be counted. The seventeenth learner round (novel44): a serial path decoded with
    errors="replace" kept the hidden points (no hidden file of task 4 held bytes that are not UTF-8)."""
    rng = measured_random("count_pretokens_in_file:not utf-8")
    words = [" the", " cat", "a", "é", "!", " 42", "\n", "字"]
    checked = 0
    for (bad, good), (special_tokens, workers) in zip(rng.sample(NOT_UTF8, 2), (([EOT], 1), ([], 2))):
        before, after = ("".join(rng.choices(words, k=rng.randint(1, 6))) for _ in range(2))
        for file in (before.encode() + good.encode() + after.encode(), before.encode() + bad + after.encode()):
            call = (f"count_pretokens_in_file(<a file of {len(file)} bytes: {short_repr(file, 60)}>, {special_tokens!r}, "
                    f"{workers}, 1, None)")
            outcome = call_task(FILE_TASK, learner, (CorpusFile(file), special_tokens, workers, 1, None))
            if bad not in file:  # valid UTF-8: counted as the reference counts it
                expected = count_pretokens(file.decode("utf-8"), special_tokens)
                got = None if outcome.error is not None else outcome.value[1]
                if outcome.error is not None or not answers_right(expected, got):
                    what = (f"raised {error_name(outcome.error)}: {str(outcome.error)[:120]}" if outcome.error is not None
                            else f"returned {short_repr(got, 120)}")
                    raise CheckFailed(f"{call} {what}\n  expected: {short_repr(expected, 200)} (the file is valid UTF-8)")
                continue
            if outcome.error is None:
                raise CheckFailed(
                    f"{call} returned {short_repr(outcome.value[1], 120)}: expected a UnicodeDecodeError (or a ValueError), "
                    f"as the reference raises: the file holds {bad!r}, {NOT_UTF8_WHY[bad]}, which is not UTF-8.\n  hint: "
                    + not_utf8_hint("count_pretokens_in_file", file, 0, len(file), special_tokens, outcome.value[1])
                    + " (step 1 counts the whole file here: decode it as count_chunk decodes its range)")
            if error_name(outcome.error) not in RAISED_ON_NOT_UTF8:
                raise CheckFailed(f"{call} raised {error_name(outcome.error)}: {str(outcome.error)[:120]}\n  expected: a "
                                  f"UnicodeDecodeError (or a ValueError): the file holds {bad!r}, {NOT_UTF8_WHY[bad]}")
            checked += 1
    passed(f"count_pretokens_in_file: raises on {checked} files that are not UTF-8 (one worker, no special tokens), and "
           "counts the same files made valid.")


# Task 4: small files, 1 to 3 workers, started by spawn and by the default; hidden, the worker processes,
# start methods and chunks measured first (the counts alone could pass: a serial count does), generated
# files with 1 to 4 workers, 1 to 3 chunks each, every start method of this machine, and the TinyStories
# sample with 2 workers. The reference is the serial count.
COUNT_PRETOKENS_IN_FILE = TaskGraders(
    FILE_TASK, serial_count, file_cases(), file_count_inputs(), max_examples=12, min_examples=6,
    hidden_verify=(verify_worker_processes,),
    hidden_cases=[*FILE_HIDDEN_CASES,
                  Later(lambda: Case((CorpusFile(data_file(TINYSTORIES_SAMPLE).read_bytes()), [EOT], 2, 1, "spawn"),
                                     {0: "<path of the TinyStories sample>"}))],
    hidden_vary=varied_file,
    hidden_then=verify_file_not_utf8,
)


LAB = Lab(
    "03_parallel",
    (FIND, COUNT_CHUNK, MERGE_COUNTS, COUNT_PRETOKENS_IN_FILE),
    references=(count_chunk, find_chunk_boundaries, merge_counts, count_pretokens, read_corpus),
    # Task 4 starts worker processes; task 2's code is a module the learner writes with %%writefile.
    policy={"provided": PROVIDED, "allow_processes": True, "call_timeout": 60.0},
)
LAB.install(globals())


# ---- stretch (ungraded): special tokens that overlap ----------------------------------------

OVERLAPPING_TOKEN_SETS = [[b"<s>", b"a<s>b"], [b"ab", b"bc"], [b"aa"], [EOT.encode(), (EOT + EOT).encode()]]


@st.composite
def overlapping_inputs(draw) -> tuple:
    tokens = draw(st.sampled_from(OVERLAPPING_TOKEN_SETS))
    parts = draw(st.lists(st.one_of(st.sampled_from(["a", "b", "c", "x", "<", "s", ">", "é"]),
                                    st.sampled_from([t.decode() for t in tokens])), max_size=30))
    return CorpusFile("".join(parts).encode()), draw(st.integers(1, 8)), tokens, draw(st.integers(1, 16))


SAFE_TASK = Task("find_safe_boundaries", FIND_TASK.params, what=FIND_TASK.what)
SAFE_CASES = [
    Case((CorpusFile(b"xxxa<s>by"), 2, [b"<s>", b"a<s>b"], 4)),  # the cut at "<s>" would split "a<s>b"
    Case((CorpusFile(b"xabcd"), 2, [b"ab", b"bc"], 4)),  # the whole text splits at "ab"; a cut at "bc" would not
    Case((CorpusFile(b"xaaay"), 2, [b"aa"], 4)),  # the serial split matches "aa" at 1, not at 2
    # "<s>" at 12 is found whole, but "a<s>b" at 10 is cut off by the read: only a token that starts
    # in the buffer counts, or the search cuts at 11, inside "a<s>b"
    Case((CorpusFile(b"b<<bbaax>>a<s>b"), 2, [b"<s>", b"a<s>b"], 3)),
]


# Stretch: boundaries that stay safe when special tokens overlap (the reference's find_chunk_boundaries
# handles both kinds), on fixed files, generated ones with overlapping tokens, then task 1's.
check_stretch_overlapping_tokens = stretch("overlapping_tokens", TaskGraders(
    SAFE_TASK, find_chunk_boundaries, SAFE_CASES, overlapping_inputs(), max_examples=150,
    then=TaskGraders(SAFE_TASK, find_chunk_boundaries, [], boundaries_inputs(), max_examples=50)))
