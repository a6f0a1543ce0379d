"""GPT-2 ``vocab.json`` / ``merges.txt``: the byte-to-unicode map, round trips, the shipped files."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_ref import data_files, train_bpe_on_text
from bpe_ref.pretokenize import GPT2_PATTERN
from bpe_ref.serialization import (
    MERGES_HEADER,
    bytes_to_unicode,
    load_merges,
    load_vocab,
    load_vocab_and_merges,
    save_vocab_and_merges,
    string_to_token,
    token_to_string,
    unicode_to_bytes,
)

PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=100)
EOT = "<|endoftext|>"

# --- the byte-to-unicode map ----------------------------------------------------------------------


def test_bytes_to_unicode_is_a_bijection_of_256_bytes():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256
    assert all(len(char) == 1 and char.isprintable() and not char.isspace() for char in table.values())
    assert unicode_to_bytes() == {char: b for b, char in table.items()}


def test_bytes_to_unicode_matches_gpt2():
    table = bytes_to_unicode()
    # Printable Latin-1 bytes stand for themselves ...
    for b in [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]:
        assert table[b] == chr(b)
    # ... and the 68 others take 256, 257, ... in byte order.
    others = [b for b in range(256) if table[b] != chr(b)]
    assert len(others) == 68
    assert [ord(table[b]) for b in others] == list(range(256, 256 + 68))
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[0] == "Ā" and table[0xAD] == "Ń"


@PROPERTY
@given(st.binary(max_size=40))
def test_token_strings_round_trip(token):
    text = token_to_string(token)
    assert len(text) == len(token)
    assert " " not in text and "\n" not in text  # so merges.txt can separate tokens with a space
    assert string_to_token(text) == token


def test_string_outside_the_map_is_a_clear_error():
    with pytest.raises(ValueError, match=r"some.json: 'a b' has the character ' ', which is not in GPT-2's byte-to-unicode map"):
        string_to_token("a b", source="some.json")


# --- save, then load: exactly the same --------------------------------------------------------------


def test_round_trip_of_a_trained_tokenizer(tmp_path):
    vocab, merges = train_bpe_on_text("the cat sat on the mat, naïve 😀 \n\n", 290, special_tokens=[EOT, "<pad>"])
    vocab_path, merges_path = save_vocab_and_merges(vocab, merges, tmp_path / "out" / "nested")
    assert vocab_path.name == "vocab.json" and merges_path.name == "merges.txt"
    assert load_vocab_and_merges(vocab_path, merges_path) == (vocab, merges)
    assert merges_path.read_text(encoding="utf-8").splitlines()[0] == MERGES_HEADER == "#version: 0.2"


@st.composite
def vocabularies_and_merges(draw):
    tokens = draw(st.lists(st.binary(max_size=12), unique=True, max_size=60))
    ids = draw(st.lists(st.integers(0, 10**6), unique=True, min_size=len(tokens), max_size=len(tokens)))
    merges = draw(st.lists(st.tuples(st.binary(min_size=1, max_size=6), st.binary(min_size=1, max_size=6)), max_size=60))
    return dict(zip(ids, tokens)), merges


@PROPERTY
@given(vocabularies_and_merges())
def test_round_trip_of_random_byte_tokens(tmp_path_factory, vocab_and_merges):
    vocab, merges = vocab_and_merges
    directory = tmp_path_factory.mktemp("round_trip")
    vocab_path, merges_path = save_vocab_and_merges(vocab, merges, directory)
    assert load_vocab_and_merges(vocab_path, merges_path) == (vocab, merges)
    # Saving again gives the same files, byte for byte.
    first = vocab_path.read_bytes(), merges_path.read_bytes()
    save_vocab_and_merges(*load_vocab_and_merges(vocab_path, merges_path), directory)
    assert (vocab_path.read_bytes(), merges_path.read_bytes()) == first


def test_two_ids_with_the_same_bytes_cannot_be_saved(tmp_path):
    with pytest.raises(ValueError, match=r"ids 3 and 7 have the same bytes b'ab': vocab.json cannot hold both"):
        save_vocab_and_merges({3: b"ab", 5: b"x", 7: b"ab"}, [], tmp_path)


# --- loading errors ---------------------------------------------------------------------------------


def test_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"vocabulary file not found: .*nope\.json"):
        load_vocab(tmp_path / "nope.json")
    with pytest.raises(FileNotFoundError, match=r"merges file not found: .*nope\.txt"):
        load_merges(tmp_path / "nope.txt")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"is not valid JSON"),
        ("[1, 2]", r"must hold a JSON object mapping token strings to ids"),
        ('{"a": "1"}', r"token 'a' has the id '1', not an integer"),
        ('{"a": 1, "b": 1}', r"id 1 is used twice"),
        ('{"a b": 1}', r"'a b' has the character ' '"),
    ],
)
def test_bad_vocab_json(tmp_path, content, message):
    path = tmp_path / "vocab.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(str(path)) + r".*" + message):
        load_vocab(path)


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("#version: 0.2\na b\nc\n", 3, r"expected 'left right', got 'c'"),
        ("a b c\n", 1, r"expected 'left right', got 'a b c'"),
        ("a  b\n", 1, r"expected 'left right'"),
        ("a\tb x\n", 1, r"'a\\tb' has the character '\\t'"),
    ],
)
def test_bad_merges_txt(tmp_path, content, line, message):
    path = tmp_path / "merges.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line {line}") + r".*" + message):
        load_merges(path)


def test_merges_txt_with_crlf_blank_lines_and_no_header(tmp_path):
    path = tmp_path / "merges.txt"
    path.write_bytes("#version: 0.2\r\nĠ t\r\n\r\nh e\r\n".encode())
    assert load_merges(path) == [(b" ", b"t"), (b"h", b"e")]
    path.write_text("Ġ t\nh e", encoding="utf-8")  # no header, no final newline
    assert load_merges(path) == [(b" ", b"t"), (b"h", b"e")]


# --- the shipped files ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_gpt2():
    return load_vocab_and_merges(data_files.data_file(data_files.GPT2_VOCAB), data_files.data_file(data_files.GPT2_MERGES))


def test_shipped_gpt2_files_load(shipped_gpt2):
    vocab, merges = shipped_gpt2
    assert len(vocab) == 50257
    assert len(merges) == 50000
    assert sorted(vocab) == list(range(50257))
    assert len(set(vocab.values())) == 50257
    assert vocab[50256] == EOT.encode()
    assert vocab[15496] == b"Hello" and vocab[995] == b" world"
    # GPT-2 numbers its 256 byte tokens in byte-to-unicode order, not by byte value.
    assert sorted(vocab[i] for i in range(256)) == [bytes([b]) for b in range(256)]
    assert vocab[0] == b"!" and vocab[188] == b"\x00"
    # Merge number i created token 256 + i.
    ids = {token: token_id for token_id, token in vocab.items()}
    assert all(ids[left + right] == 256 + i for i, (left, right) in enumerate(merges))
    assert merges[0] == (b" ", b"t")


def test_shipped_gpt2_files_resave_to_the_same_content(shipped_gpt2, tmp_path):
    vocab, merges = shipped_gpt2
    vocab_path, merges_path = save_vocab_and_merges(vocab, merges, tmp_path)
    original_vocab = json.loads(data_files.GPT2_VOCAB.read_text(encoding="utf-8"))
    assert json.loads(vocab_path.read_text(encoding="utf-8")) == original_vocab
    original_lines = data_files.GPT2_MERGES.read_text(encoding="utf-8").splitlines()
    saved_lines = merges_path.read_text(encoding="utf-8").splitlines()
    # The shipped merges.txt (from CS336) has no "#version" header; ours always writes one.
    assert saved_lines[0] == MERGES_HEADER
    assert saved_lines[1:] == [line for line in original_lines if not line.startswith("#version")]
    assert load_vocab_and_merges(vocab_path, merges_path) == (vocab, merges)


def test_shipped_gpt2_vocab_agrees_with_tiktoken(shipped_gpt2):
    """An independent check of the loaded bytes: tiktoken, built from them, encodes as GPT-2 does."""
    tiktoken = pytest.importorskip("tiktoken")
    vocab, _ = shipped_gpt2
    encoding = tiktoken.Encoding(
        name="gpt2_from_shipped_files",
        pat_str=GPT2_PATTERN,
        mergeable_ranks={token: token_id for token_id, token in vocab.items() if token_id != 50256},
        special_tokens={EOT: 50256},
    )
    assert encoding.encode("Hello world") == [15496, 995]
    assert encoding.encode(EOT, allowed_special="all") == [50256]


def test_reference_fixtures_load(reference_merges, reference_vocab):
    assert len(reference_merges) == 243
    assert reference_merges[:3] == [(b" ", b"t"), (b" ", b"a"), (b"h", b"e")]
    assert len(reference_vocab) == 500
    assert reference_vocab[0] == EOT.encode()
