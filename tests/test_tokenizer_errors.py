"""Bad input gets a clear error (CONTRIBUTING.md, "Bad input"), and nothing half-done."""

from __future__ import annotations

import re

import pytest

from bpe_ref import ENCODE_METHODS, Tokenizer
from bpe_ref.decode import ArenaDecoder

METHODS = [None, *ENCODE_METHODS]
BYTES = {i: bytes([i]) for i in range(256)}


@pytest.fixture(scope="module")
def small() -> Tokenizer:
    vocab = BYTES | {256: b"<|endoftext|>", 257: b"ab", 258: b"abc"}
    return Tokenizer(vocab, [(b"a", b"b"), (b"ab", b"c")], ["<|endoftext|>"])


# ---------------------------------------------------------------- decode of an unknown id

@pytest.mark.parametrize("bad_id", [259, 10**9, -1, -259])
def test_decode_unknown_id_names_it(small, bad_id):
    with pytest.raises(ValueError, match=rf"token id {bad_id}\b.*not in the vocabulary"):
        small.decode([257, bad_id, 258])
    with pytest.raises(ValueError, match=rf"token id {bad_id}\b"):
        small.decode_bytes([bad_id])
    with pytest.raises(ValueError, match=rf"token id {bad_id}\b"):
        small.token_bytes(bad_id)


def test_decode_unknown_id_in_a_sparse_vocabulary():
    vocab = BYTES | {1000: b"ab"}  # ids with a gap: 256..999 do not exist
    tok = Tokenizer(vocab, [(b"a", b"b")])
    assert tok.decode([1000, 99]) == "abc"
    with pytest.raises(ValueError, match="token id 500"):
        tok.decode([500])


def test_far_apart_ids_do_not_allocate_huge_tables():
    tok = Tokenizer(BYTES | {10**12: b"ab"}, [(b"a", b"b")], ["<s>"])
    assert tok.encode("ab<s>") == [10**12, 10**12 + 1]
    assert tok.decode([10**12, 10**12 + 1]) == "ab<s>"
    with pytest.raises(ValueError, match="token id 300"):
        tok.decode([300])


def test_decode_rejects_non_ids(small):
    with pytest.raises(TypeError, match="iterable of int token ids"):
        small.decode([[1, 2]])
    with pytest.raises(TypeError, match="iterable of int token ids"):
        small.decode(5)


NUMPY_IDS = ["int64", "int32", "uint16", "uint32"]


@pytest.mark.parametrize("dtype", NUMPY_IDS)
def test_a_fresh_tokenizer_decodes_numpy_ids(dtype):
    """What encode-corpus writes (np.load gives an array; indexing it gives NumPy scalars),
    decoded by a tokenizer that has decoded nothing before (the cache must not be what saves it)."""
    np = pytest.importorskip("numpy")
    ids = [256, 258, 257, 99]
    for given in (np.array(ids, dtype=dtype), [np.dtype(dtype).type(i) for i in ids], tuple(np.array(ids, dtype=dtype))):
        vocab = BYTES | {256: b"<|endoftext|>", 257: b"ab", 258: b"abc"}
        fresh = Tokenizer(vocab, [(b"a", b"b"), (b"ab", b"c")], ["<|endoftext|>"])
        assert fresh.decode_bytes(given) == b"<|endoftext|>abcabc"
        fresh = Tokenizer(vocab, [(b"a", b"b"), (b"ab", b"c")], ["<|endoftext|>"])
        assert fresh.decode(given) == "<|endoftext|>abcabc"
        assert fresh.token_bytes(given[1]) == b"abc"
    with pytest.raises(ValueError, match="token id 300"):
        fresh.decode(np.array([97, 300], dtype=dtype))


@pytest.mark.parametrize("bad", [[True], [False], [97, True], (False,)])
def test_a_bool_is_not_a_token_id(bad):
    """True == 1 and False == 0, also as dict keys: rejected on a fresh tokenizer and after ids
    0 and 1 were decoded (a cache of them would answer a bool)."""
    tok = Tokenizer(BYTES, [])
    for _ in range(2):
        with pytest.raises(TypeError, match="not bool"):
            tok.decode(bad)
        with pytest.raises(TypeError, match="not bool"):
            tok.decode_bytes(bad)
        assert tok.decode_bytes([0, 1, 0, 1]) == b"\x00\x01\x00\x01"
    with pytest.raises(TypeError, match="not bool"):
        tok.token_bytes(True)


def test_numpy_bools_and_floats_are_not_token_ids():
    np = pytest.importorskip("numpy")
    tok = Tokenizer(BYTES, [])
    for bad, message in [(np.array([True]), "array of bool"), ([np.True_], "not bool"),
                         (np.array([97.0]), "array of float64"), ([np.float64(97)], "float64"), ([97.0], "float"),
                         (["a"], "'a' \\(str\\)")]:
        with pytest.raises(TypeError, match=message):
            tok.decode(bad)


def test_decode_of_a_cut_character_is_replaced_not_an_error():
    tok = Tokenizer(BYTES, [])
    ids = tok.encode("é")  # two byte tokens
    assert tok.decode(ids[:1]) == "\ufffd"
    assert tok.decode_bytes(ids[:1]) == "é".encode()[:1]


# ---------------------------------------------------------------- vocab and merges that do not fit

def test_merge_whose_part_is_missing_is_named():
    with pytest.raises(ValueError, match=r"merge 1 \(b'ab', b'x'\).*part b'ab' is not in"):
        Tokenizer(BYTES | {256: b"ax", 257: b"abx"}, [(b"a", b"x"), (b"ab", b"x")])


def test_merge_whose_result_is_missing_is_named():
    with pytest.raises(ValueError, match=r"merge 0 \(b'a', b'b'\).*result b'ab' is not in"):
        Tokenizer(BYTES, [(b"a", b"b")])


def test_vocab_without_every_byte():
    vocab = {i: bytes([i]) for i in range(255)}
    with pytest.raises(ValueError, match=r"no token for 1 single byte.*b'\\xff'.*all 256"):
        Tokenizer(vocab, [])


@pytest.mark.parametrize(
    "vocab, merges, error, message",
    [
        ({**BYTES, 256: "ab"}, [], TypeError, r"vocab\[256\] must be bytes"),
        ({**BYTES, "x": b"ab"}, [], TypeError, "vocab ids must be ints"),
        ({**BYTES, 256: b""}, [], ValueError, "empty byte string"),
        ({**BYTES, -5: b"ab"}, [], ValueError, "non-negative"),
        (BYTES, [(b"a",)], TypeError, r"merge 0 must be a pair"),
        (BYTES, [("a", "b")], TypeError, r"merge 0 must be a pair of non-empty bytes"),
        (BYTES, [(b"", b"b")], TypeError, r"merge 0 must be a pair of non-empty bytes"),
        ([b"a"], [], TypeError, "vocab must be a dict"),
        (BYTES, "ab", TypeError, "merges must be a list"),
    ],
)
def test_malformed_vocab_or_merges(vocab, merges, error, message):
    with pytest.raises(error, match=message):
        Tokenizer(vocab, merges)


@pytest.mark.parametrize("name", ["vocab.json", "merges.txt"])
def test_files_that_are_not_utf8_are_named(tmp_path, name):
    """A binary file given as vocab.json or merges.txt: the message names it and the byte offset
    (it was only "'utf-8' codec can't decode byte 0xd3")."""
    Tokenizer(BYTES | {256: b"ab"}, [(b"a", b"b")]).save(tmp_path)
    bad = tmp_path / name
    bad.write_bytes(bad.read_bytes()[:10] + b"\xd3\xff" + bad.read_bytes()[10:])
    with pytest.raises(ValueError, match=rf"{re.escape(str(bad))} is not valid UTF-8: byte offset 10\b"):
        Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


def test_from_files_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        Tokenizer.from_files(tmp_path / "nope.json", tmp_path / "merges.txt")


# ---------------------------------------------------------------- two tokens with the same bytes

def test_repeated_token_bytes_are_refused_clearly_by_the_encoders_that_need_unique_bytes():
    vocab = BYTES | {256: b"bc", 257: b"abc", 258: b"ab", 259: b"abc"}
    tok = Tokenizer(vocab, [(b"b", b"c"), (b"a", b"bc"), (b"a", b"b"), (b"ab", b"c")])
    assert tok.encode("abc") == tok.encode("abc", method="naive") == [257]
    for method in ("backtrack", "table"):
        with pytest.raises(ValueError, match=r"needs every token's bytes to be unique.*b'abc'.*ids \[257, 259\]"):
            tok.encode("abc", method=method)


# ---------------------------------------------------------------- text that UTF-8 cannot encode

@pytest.mark.parametrize("method", METHODS)
def test_lone_surrogate(small, method):
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800 at index 3"):
        small.encode("abc\ud800 abc", method=method)


def test_lone_surrogate_streamed_and_in_special_tokens(small):
    with pytest.raises(ValueError, match=r"lone surrogate U\+DFFF"):
        list(small.encode_iterable(["ok ", "x\udfff\n"]))
    with pytest.raises(ValueError, match=r"lone surrogate U\+D800"):
        Tokenizer(BYTES, [], ["<\ud800>"])


def test_nothing_half_done_after_an_error(small):
    # The failed call leaves the cache consistent: the same text encodes fine afterwards.
    with pytest.raises(ValueError):
        small.encode("abc abc \ud800")
    assert small.encode("abc abc ") == [258, 32, 258, 32]


# ---------------------------------------------------------------- wrong types and options

def test_wrong_argument_types(small):
    with pytest.raises(TypeError, match=r"encode takes a str, got bytes \(decode bytes to str first\)"):
        small.encode(b"abc")
    with pytest.raises(TypeError, match="iterable of strings"):
        list(small.encode_iterable("abc"))
    with pytest.raises(TypeError, match="needs str chunks, got bytes"):
        list(small.encode_iterable([b"abc"]))
    with pytest.raises(ValueError, match="unknown encode method 'fast'.*naive, heap, backtrack, table"):
        small.encode("abc", method="fast")


def test_bad_special_tokens():
    with pytest.raises(TypeError, match="single str"):
        Tokenizer(BYTES, [], "<|endoftext|>")
    with pytest.raises(ValueError, match="more than once"):
        Tokenizer(BYTES, [], ["<s>", "<s>"])
    with pytest.raises(ValueError, match="empty string"):
        Tokenizer(BYTES, [], [""])


@pytest.mark.parametrize("size", [0, -1, 1.5, True])
def test_bad_cache_size(size):
    with pytest.raises(ValueError, match="cache_size"):
        Tokenizer(BYTES, [], cache_size=size)


def test_arena_decoder_direct():
    vocab = BYTES | {256: b"ab"}
    decoder = ArenaDecoder(vocab)
    assert 256 in decoder and 257 not in decoder
    with pytest.raises(ValueError, match="token id 257"):
        decoder.decode([257])
