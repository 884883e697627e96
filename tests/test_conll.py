"""Tests for the CoNLL-U / CoNLL-X reader and writer (treetool.formats.conll, treetool.sentence).

The fast reader (numpy over byte chunks) is checked against the slow
line-by-line reference (``reference_conll.read_conll_reference``), against
the ``conllu`` library, and byte for byte against every real file in
../shared.  Small chunk sizes are used throughout so the carry-over of
unfinished sentences between chunks is exercised.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA, SHARED, shared_path
from reference_conll import read_conll_reference
from treetool import trees
from treetool.formats import conll
from treetool.formats.conll import read_conll, to_conllx_bytes, write_conll
from treetool.errors import TreebankError
from treetool.sentence import Sentence
from treetool.treebank import read_treebank

CHUNK_SIZES = (None, 1, 7, 64)  # None: the default (1 MiB)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
@contextmanager
def chunk_size(size: int | None):
    old = conll.CHUNK_BYTES
    if size is not None:
        conll.CHUNK_BYTES = size
    try:
        yield
    finally:
        conll.CHUNK_BYTES = old


def fast(data: bytes, fmt: str = "conllu", chunk: int | None = None, on_error=None) -> list[Sentence]:
    with chunk_size(chunk):
        return list(read_conll(io.BytesIO(data), "t.conllu", fmt, on_error))


def reference(data: bytes, fmt: str = "conllu", on_error=None) -> list[Sentence]:
    return list(read_conll_reference(io.BytesIO(data), "t.conllu", fmt, on_error))


def summary(s: Sentence) -> tuple:
    return (s.raw, s.line, s.head_list, s.deprels, s.lines, s.has_extra_lines,
            [s.word_row(i) for i in range(1, len(s) + 1)])


def read_all(data: bytes, fmt: str = "conllu") -> list[Sentence]:
    """Read with the fast reader at several chunk sizes; check each against the reference."""
    expected = [summary(s) for s in reference(data, fmt)]
    result = None
    for chunk in CHUNK_SIZES:
        sentences = fast(data, fmt, chunk)
        assert [summary(s) for s in sentences] == expected, f"chunk size {chunk}"
        assert b"".join(s.to_bytes() for s in sentences) == data
        result = sentences
    return result


def error_of(data: bytes, fmt: str = "conllu") -> TreebankError:
    """The error of the fast reader (at several chunk sizes), checked against the reference's."""
    with pytest.raises(TreebankError) as ref:
        reference(data, fmt)
    want = (ref.value.message, ref.value.line, ref.value.sent_id, ref.value.raw)
    for chunk in CHUNK_SIZES:
        with pytest.raises(TreebankError) as got:
            fast(data, fmt, chunk)
        assert (got.value.message, got.value.line, got.value.sent_id, got.value.raw) == want, f"chunk size {chunk}"
    assert got.value.filename == "t.conllu"
    return got.value


def word(i, form, head, rel, upos="X", lemma="_", xpos="_", feats="_", deps="_", misc="_") -> str:
    return f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{rel}\t{deps}\t{misc}"


def extra(ident, form="_") -> str:
    return f"{ident}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_"


S1 = "\n".join([
    "# sent_id = s1",
    "# text = The dog barks",
    word(1, "The", 2, "det", "DET"),
    word(2, "dog", 3, "nsubj", "NOUN"),
    word(3, "barks", 0, "root", "VERB"),
]) + "\n\n"
S3 = "\n".join([
    "# sent_id = s3",
    extra("1-2", "del"),
    word(1, "de", 3, "case", "ADP"),
    word(2, "el", 3, "det", "DET"),
    word(3, "campo", 0, "root", "NOUN"),
    extra("3.1", "is"),
]) + "\n\n"
S1_LINES = 6  # lines of S1, its blank line included


def doc(middle_lines: list[str]) -> bytes:
    """S1, a sentence made of ``middle_lines`` (starting on line 7), then S3."""
    return (S1 + "\n".join(middle_lines) + "\n\n" + S3).encode()


def middle(*lines: str) -> list[str]:
    return ["# sent_id = bad", *lines]


GOOD_MIDDLE = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"))


# ---------------------------------------------------------------------------
# round trips on real files
# ---------------------------------------------------------------------------
def _shared_files() -> list[str]:
    names = sorted(str(p.relative_to(SHARED)) for p in (SHARED / "data").rglob("*.conllu"))
    names += sorted(str(p.relative_to(SHARED)) for p in (SHARED / "reference" / "maltparser").glob("*.conllu"))
    return names or ["(../shared absent)"]


SHARED_FILES = _shared_files()


def shared_file(name: str) -> tuple[Path, str]:
    path = shared_path(*Path(name).parts)
    # The MaltParser covered-root inputs have several roots: CoNLL-X semantics.
    return path, ("conllx" if "multiroot" in path.name else "conllu")


@pytest.mark.parametrize("name", SHARED_FILES)
def test_shared_file_round_trips_and_matches_the_reference(name):
    path, fmt = shared_file(name)
    data = path.read_bytes()
    with path.open("rb") as f:
        sentences = list(read_conll(f, str(path), fmt))
    out = io.BytesIO()
    write_conll(sentences, out)
    assert out.getvalue() == data
    assert all(not s.changed for s in sentences)
    # Fast path == slow reference: same sentences, lines, heads and deprels.
    ref = list(read_conll_reference(io.BytesIO(data), str(path), fmt))
    assert len(ref) == len(sentences)
    assert [s.line for s in sentences] == [s.line for s in ref]
    assert [s.raw for s in sentences] == [s.raw for s in ref]
    fast_heads = np.concatenate([s.heads for s in sentences])
    ref_heads = np.concatenate([s.heads for s in ref])
    assert np.array_equal(fast_heads, ref_heads)
    assert [s.deprels for s in sentences] == [s.deprels for s in ref]


def test_shared_round_trip_through_read_treebank_with_small_chunks():
    path = shared_path("data", "ud-2.2", "UD_German-GSD", "de_gsd-ud-dev.conllu")
    data = path.read_bytes()
    with chunk_size(4096):
        assert b"".join(s.to_bytes() for s in read_treebank(str(path))) == data


def _sample_files() -> list[str]:
    files = sorted(p.name for p in SAMPLE_DATA.glob("*") if p.suffix in (".conllu", ".conll", ".conllx"))
    return files or ["(none yet)"]


@pytest.mark.parametrize("name", _sample_files())
def test_sample_data_round_trips(name):
    path = SAMPLE_DATA / name
    if not path.exists():
        pytest.skip(f"no .conllu/.conll files in {SAMPLE_DATA} yet")
    data = path.read_bytes()
    errors: list[TreebankError] = []
    pieces = []
    for s in read_treebank(str(path), on_error=errors.append):
        pieces.append((s.line, s.to_bytes()))
    pieces += [(e.line, e.raw) for e in errors]  # files meant to hold bad sentences
    pieces.sort(key=lambda p: p[0])
    assert b"".join(p[1] for p in pieces) == data


# ---------------------------------------------------------------------------
# cross-check with the conllu library
# ---------------------------------------------------------------------------
def _conllu_metadata(comments: list[str]) -> dict:
    """What conllu makes of comment lines (its parse_pair_value rules)."""
    meta = {}
    for c in comments:
        key, eq, value = c.strip()[1:].partition("=")
        key, value = key.strip(), (value.strip() if eq else None)
        if key in ("newdoc", "newpar"):
            meta[key] = value
        elif key and value:
            meta[key] = value
    return meta


def _extra_tokens(s: Sentence) -> list[tuple]:
    out = []
    for text in s.lines:
        cols = text.rstrip("\r").split("\t")
        if text.startswith("#") or cols[0].isdigit():
            continue
        sep = "-" if "-" in cols[0] else "."
        a, b = cols[0].split(sep)
        out.append(((int(a), sep, int(b)), cols[1]))
    return out


def _compare_with_conllu(s: Sentence, tl) -> None:
    words = [t for t in tl if isinstance(t["id"], int)]
    n = len(s)
    assert [t["id"] for t in words] == list(range(1, n + 1))
    assert [t["form"] for t in words] == s.forms[1:]
    assert [t["upos"] for t in words] == s.upos[1:]
    assert [t["head"] for t in words] == s.head_list[1:]
    assert [t["deprel"] for t in words] == s.deprels[1:]
    assert [(t["id"], t["form"]) for t in tl if not isinstance(t["id"], int)] == _extra_tokens(s)
    assert dict(tl.metadata) == _conllu_metadata(s.comments)
    assert s.sent_id == tl.metadata.get("sent_id")


UD_FILES = [n for n in SHARED_FILES if n.startswith("data/ud-2.2/")] or ["(../shared absent)"]


@pytest.mark.parametrize("name", UD_FILES)
def test_fields_match_the_conllu_library_on_sampled_sentences(name):
    conllu = pytest.importorskip("conllu")
    path, fmt = shared_file(name)
    sentences = list(read_treebank(str(path)))
    step = max(1, len(sentences) // 40)
    sample = sentences[::step] + [s for s in sentences if s.has_extra_lines][:40]
    checked = 0
    for s in sample:
        text = s.to_text()
        if "  " in text:
            continue  # conllu splits fields on two spaces
        (tl,) = conllu.parse(text)
        _compare_with_conllu(s, tl)
        checked += 1
    assert checked >= min(len(sample), 20)


def test_whole_file_matches_the_conllu_library():
    conllu = pytest.importorskip("conllu")
    path = shared_path("data", "ud-2.2", "UD_Swedish-Talbanken", "sv_talbanken-ud-dev.conllu")  # has empty nodes
    ours = list(read_treebank(str(path)))
    with path.open(encoding="utf-8") as f:
        theirs = list(conllu.parse_incr(f))
    assert len(ours) == len(theirs)
    assert sum(s.n_empty for s in ours) == 2
    for s, tl in zip(ours, theirs):
        _compare_with_conllu(s, tl)


# ---------------------------------------------------------------------------
# reader fields and layout
# ---------------------------------------------------------------------------
def test_fields_comments_and_extra_lines():
    data = (S1 + S3).encode()
    s1, s3 = read_all(data)
    assert (s1.line, s3.line) == (1, 7)
    assert s1.filename == "t.conllu" and s1.format == "conllu"
    assert s1.sent_id == "s1" and s1.comments == ["# sent_id = s1", "# text = The dog barks"]
    assert len(s1) == s1.n_words == 3
    assert s1.heads.dtype == np.int32 and s1.heads.tolist() == [-1, 2, 3, 0]
    assert s1.head_list == [-1, 2, 3, 0]
    assert s1.forms == ["", "The", "dog", "barks"] and s1.upos == ["", "DET", "NOUN", "VERB"]
    assert s1.deprels == ["", "det", "nsubj", "root"]
    assert s1.lemmas == ["", "_", "_", "_"] and s1.xpos == ["", "_", "_", "_"]
    assert not s1.has_extra_lines and s1.word_row(1) == 2
    assert s1.raw == S1.encode() and s1.to_text() == S1
    assert s3.has_extra_lines and (s3.n_multiword, s3.n_empty) == (1, 1)
    assert [s3.word_row(i) for i in (1, 2, 3)] == [2, 3, 4]
    assert s3.word_lines() == S3.split("\n")[2:5]
    assert s3.head_list == [-1, 3, 3, 0] and s3.forms[1:] == ["de", "el", "campo"]
    assert s3.lines == S3.rstrip("\n").split("\n")


def test_heads_is_a_fresh_copy():
    (s,) = read_all(S1.encode())
    h = s.heads
    h[1] = 3
    assert s.heads.tolist() == [-1, 2, 3, 0] and s.to_bytes() == S1.encode()


def test_comments_after_words_are_allowed_and_kept():
    text = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n# between\n2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n\n"
    (s,) = read_all(text.encode())
    assert s.has_extra_lines and s.comments == ["# between"] and s.word_row(2) == 2


def test_crlf_line_ends_are_accepted_and_kept():
    data = (S1 + S3).replace("\n", "\r\n").encode()
    s1, s3 = read_all(data)
    assert s1.head_list == [-1, 2, 3, 0] and s3.head_list == [-1, 3, 3, 0]
    assert s1.comments == ["# sent_id = s1", "# text = The dog barks"] and s1.sent_id == "s1"
    assert all(line.endswith("\r") for line in s1.lines)
    assert s1.deprels == ["", "det", "nsubj", "root"]
    s1.set_tree([-1, 3, 3, 0], ["", "det", "obj", "root"])
    out = s1.to_bytes()
    assert out.count(b"\r\n") == out.count(b"\n") and b"\t3\tobj\t" in out
    assert fast(out)[0].head_list == [-1, 3, 3, 0]


def test_sentence_without_final_newline():
    data = (S1 + S3.rstrip("\n")).encode()
    s1, s3 = read_all(data)
    assert s3.raw == S3.rstrip("\n").encode() and s3.head_list == [-1, 3, 3, 0]
    single = read_all(word(1, "x", 0, "root").encode())
    assert single[0].raw == word(1, "x", 0, "root").encode()
    crlf = read_all((S1.replace("\n", "\r\n") + word(1, "x", 0, "root") + "\r").encode())
    assert crlf[1].lines == [word(1, "x", 0, "root") + "\r"]


def test_extra_blank_lines_belong_to_the_sentence_before():
    data = ("\n \n" + S1 + "\n \t\n\r\n" + S3 + "\n\n  \t").encode()
    s1, s3 = read_all(data)
    assert s1.line == 3 and s3.line == 12
    assert s1.raw == ("\n \n" + S1 + "\n \t\n\r\n").encode()
    assert s3.raw == (S3 + "\n\n  \t").encode()
    assert s1.prefix == "\n \n" and s1.sep == "\n\n\n \t\n\r\n"


def test_a_last_line_of_blanks_without_a_line_end_is_blank():
    """Found by hypothesis: a final " \t \t" (no newline) after one line end was read as a word line by the reference."""
    data = (S1 + S3 + " \t \t").encode()
    s1, s3 = read_all(data)  # both readers agree, and the sentence is good
    assert s3.head_list == [-1, 3, 3, 0] and s3.raw == (S3 + " \t \t").encode()


def test_blank_input_gives_no_sentences():
    for data in (b"", b"\n", b"\n \t\r\n\n"):
        assert fast(data) == [] and reference(data) == []


def test_byte_order_mark_is_kept_and_not_an_error():
    data = b"\xef\xbb\xbf" + (S1 + S3).encode()
    s1, s3 = read_all(data)
    assert s1.raw.startswith(b"\xef\xbb\xbf") and s1.sent_id == "s1" and s1.line == 1
    assert s1.comments[0] == "# sent_id = s1" and s1.head_list == [-1, 2, 3, 0]
    with_blank = b"\xef\xbb\xbf\n" + S1.encode()
    (s,) = read_all(with_blank)
    assert s.line == 2 and s.raw == with_blank
    # A byte-order mark anywhere else is an ordinary character: the comment becomes a token line.
    err = error_of(S1.encode() + b"\xef\xbb\xbf" + S3.encode())
    assert (err.line, err.message) == (7, "expected 10 tab-separated columns, found 1")


@pytest.mark.parametrize("suffix,opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_input(tmp_path, suffix, opener):
    data = ("\n" + S1 + S3).replace("\n", "\r\n").encode()
    path = tmp_path / f"t.conllu{suffix}"
    with opener(path, "wb") as f:
        f.write(data)
    sentences = list(read_treebank(str(path)))
    assert b"".join(s.to_bytes() for s in sentences) == data
    assert [s.head_list for s in sentences] == [[-1, 2, 3, 0], [-1, 3, 3, 0]]
    # Compression is also recognised by its magic bytes, whatever the name.
    plain_name = tmp_path / "t.conllu"
    plain_name.write_bytes(path.read_bytes())
    assert b"".join(s.to_bytes() for s in read_treebank(str(plain_name))) == data


def test_truncated_compressed_input_is_a_treebank_error(tmp_path):
    path = tmp_path / "t.conllu.gz"
    data = gzip.compress((S1 * 2000).encode())[:-40]
    path.write_bytes(data)
    with pytest.raises(TreebankError, match=f"truncated compressed data: .* ends at byte {len(data)} "):
        list(read_treebank(str(path)))


def test_a_nul_byte_is_refused_at_its_line_even_when_errors_are_skipped():
    text = (S1 + S3.replace("campo", "ca\x00mpo")).encode()
    err = error_of(text)
    assert (err.message, err.line) == ("binary data (a NUL byte), not a treebank", text[:text.index(b"\x00")].count(b"\n") + 1)
    skipped: list[TreebankError] = []
    with pytest.raises(TreebankError, match="NUL"):
        list(read_conll(io.BytesIO(text), "t.conllu", "conllu", skipped.append))
    assert skipped == []


@pytest.mark.parametrize("label, message", [
    ("n subj", "DEPREL 'n subj' holds whitespace: a label is one word (no spaces)"),
    ("nsubj ", "DEPREL 'nsubj ' holds whitespace: a label is one word (no spaces)"),
    ("n\u00a0subj", "DEPREL 'n\\xa0subj' holds whitespace: a label is one word (no spaces)"),
    ("", "empty DEPREL (write '_' for none)"),
])
@pytest.mark.parametrize("fmt", ["conllu", "conllx"])
def test_a_deprel_that_no_action_can_spell_is_refused_at_its_word(label, message, fmt):
    text = S1.replace("\t3\tnsubj\t", f"\t3\t{label}\t")
    assert text != S1
    err = error_of(text.encode(), fmt)
    assert (err.message, err.line) == (message, 4)


def test_odd_but_whole_deprels_are_read_by_both_paths():
    text = S1.replace("\t3\tnsubj\t", "\t3\tnsübj:(x)\t").replace("\t2\tdet\t", "\t2\t_\t")
    (s,) = read_all(text.encode())
    assert s.deprels[1:3] == ["_", "nsübj:(x)"]


def test_more_than_ten_columns_follow_the_first_token_line():
    eleven = (S1 + S3).replace("\t_\n", "\t_\textra\n").encode()
    s1, s3 = read_all(eleven)
    assert s1.ncols == 11 and s3.head_list == [-1, 3, 3, 0]
    mixed = (S1.replace("\t_\n", "\t_\textra\n") + S3).encode()
    err = error_of(mixed)
    assert (err.message, err.line) == ("expected 11 tab-separated columns, found 10", 8)
    fewer = S1.replace("\t_\n", "\n").encode()
    assert error_of(fewer).message == "expected 10 tab-separated columns, found 9"


def test_conllx_allows_several_roots_but_not_extra_lines():
    two_roots = doc(middle(word(1, "a", 0, "root"), word(2, "b", 0, "root")))
    sentences = read_all(two_roots.replace(S3.encode(), S1.encode()), "conllx")
    assert sentences[1].head_list == [-1, 0, 0] and sentences[1].format == "conllx"
    err = error_of((S1 + S3).encode(), "conllx")
    assert (err.message, err.line) == ("ID must be a word number in CoNLL-X, found '1-2'", 8)


def test_unusual_bytes_go_through_the_slow_path_and_are_accepted():
    text = S1.replace("dog", "d\x01o\x08g") + S3.replace("campo", "ca\x02mpo")
    s1, s3 = read_all(text.encode())
    assert s1.forms[2] == "d\x01o\x08g" and s3.forms[3] == "ca\x02mpo"
    zeros = S1.replace("\t2\tdet", "\t02\tdet").replace("3\tbarks", "03\tbarks")
    (s,) = read_all(zeros.encode())
    assert s.head_list == [-1, 2, 3, 0]
    long_head = S1.replace("\t2\tdet", "\t0000000000002\tdet")
    (s,) = read_all(long_head.encode())
    assert s.head_list == [-1, 2, 3, 0]


# ---------------------------------------------------------------------------
# bad input: one test per case, message and line number
# ---------------------------------------------------------------------------
def check_error(lines: list[str], message: str, line: int, fmt: str = "conllu") -> TreebankError:
    data = doc(lines)
    err = error_of(data, fmt)
    assert (err.message, err.line) == (message, line)
    assert err.sent_id == "bad"
    assert isinstance(err.raw, bytes) and err.raw == ("\n".join(lines) + "\n\n").encode()
    assert str(err).startswith(f"t.conllu:{line}: ")
    return err


def test_good_middle_sentence_is_accepted():
    assert [s.sent_id for s in read_all(doc(GOOD_MIDDLE))] == ["s1", "bad", "s3"]


def test_error_wrong_column_count():
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root").rsplit("\t", 1)[0], word(3, "c", 2, "obj"))
    check_error(lines, "expected 10 tab-separated columns, found 9", 9)
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root") + "\tx", word(3, "c", 2, "obj"))
    check_error(lines, "expected 10 tab-separated columns, found 11", 9)


@pytest.mark.parametrize("head", ["x", "", " 2", "2 ", "-1", "+2", "²", "2a"])
def test_error_non_integer_head(head):
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), word(3, "c", head, "obj"))
    check_error(lines, f"HEAD must be a non-negative integer, found {head!r}", 10)


def test_error_non_digit_after_a_digit_in_a_long_sentence():
    # "1x" must not pass as some number <= n, however long the sentence.
    words = [word(i, f"w{i}", i + 1, "dep") for i in range(1, 300)] + [word(300, "w300", 0, "root")]
    words[4] = word(5, "w5", "1x", "dep")
    check_error(middle(*words), "HEAD must be a non-negative integer, found '1x'", 12)


def test_error_control_byte_and_a_missing_tab():
    # A control byte must not stand in for the missing tab.
    lines = middle(word(1, "a\x01b", 2, "nsubj").replace("\tX\t", "\tX "), word(2, "b", 0, "root"))
    check_error(lines, "expected 10 tab-separated columns, found 9", 8)


def test_error_head_out_of_range():
    lines = middle(word(1, "a", 4, "nsubj"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"))
    check_error(lines, "HEAD 4 is out of range: the sentence has 3 words", 8)


def test_error_head_points_into_a_multiword_range():
    lines = middle(word(1, "a", "2-3", "nsubj"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"))
    check_error(lines, "HEAD 2-3 points into a multiword-token range; a head must be a word id", 8)


def test_error_head_points_to_an_empty_node():
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), extra("2.1"), word(3, "c", "2.1", "obj"))
    check_error(lines, "HEAD 2.1 points to an empty node; basic-tree heads must be word ids", 11)


def test_error_broken_word_sequence():
    lines = middle(word(1, "a", 3, "nsubj"), word(3, "b", 0, "root"), word(4, "c", 3, "obj"))
    check_error(lines, "broken ID sequence: expected word 2, found 3", 9)
    lines = middle(word(2, "a", 0, "root"))
    check_error(lines, "broken ID sequence: expected word 1, found 2", 8)
    lines = middle(word(1, "a", 0, "root"), word(1, "b", 1, "dep"))
    check_error(lines, "broken ID sequence: expected word 2, found 1", 9)


def test_error_multiword_token_not_at_the_next_word():
    lines = middle(word(1, "a", 2, "nsubj"), extra("3-4"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"), word(4, "d", 2, "obj"))
    check_error(lines, "broken ID sequence: multiword token 3-4 must start at word 2 and span at least two words", 9)
    lines = middle(extra("1-1"), word(1, "a", 0, "root"))
    check_error(lines, "broken ID sequence: multiword token 1-1 must start at word 1 and span at least two words", 8)


def test_error_overlapping_multiword_tokens():
    lines = middle(extra("1-2"), word(1, "a", 2, "nsubj"), extra("2-3"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"))
    check_error(lines, "multiword token 2-3 overlaps the previous one", 10)


def test_error_multiword_token_beyond_the_last_word():
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), extra("3-4"), word(3, "c", 2, "obj"))
    check_error(lines, "multiword token reaches word 4 but the sentence has 3 words", 8)


def test_error_empty_node_in_the_wrong_place():
    lines = middle(word(1, "a", 2, "nsubj"), extra("2.1"), word(2, "b", 0, "root"), word(3, "c", 2, "obj"))
    check_error(lines, "broken ID sequence: empty node 2.1 found after word 1", 9)


@pytest.mark.parametrize("ident", ["a", "1-", "-1", "1.", "1-2-3", " 1", "1.x", "1.2.3", "1-²"])
def test_error_id_not_a_number(ident):
    lines = middle(word(1, "a", 0, "root"), extra(ident), word(2, "b", 1, "dep"))
    check_error(lines, f"ID must be a word number, a range N-M or an empty node N.M, found {ident!r}", 9)


def test_error_cycle():
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), word(3, "c", 4, "obj"), word(4, "d", 3, "obj"))
    check_error(lines, "cycle: words 3 -> 4 -> 3 do not reach the root", 10)
    lines = middle(word(1, "a", 0, "root"), word(2, "b", 2, "dep"))
    check_error(lines, "cycle: words 2 -> 2 do not reach the root", 9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 12).flatmap(lambda n: st.lists(st.integers(0, n), min_size=n, max_size=n)), min_size=1, max_size=8))
def test_batch_cycle_check_agrees_with_trees_find_cycle(sentences):
    """The fast reader's pointer jumping over a whole chunk gives, sentence by
    sentence, the verdict of the project's one cycle check, trees.find_cycle."""
    heads = np.array([h for rest in sentences for h in rest])
    sizes = np.array([len(rest) for rest in sentences])
    sentence = np.repeat(np.arange(len(sentences)), sizes)
    first_word = np.cumsum(sizes) - sizes
    isroot = heads == 0
    parent = np.where(isroot, np.arange(heads.size), first_word[sentence] + heads - 1)
    reaches = conll._reaches_root(parent, isroot, int(sizes.max()))
    for j, rest in enumerate(sentences):
        assert bool(reaches[sentence == j].all()) == (trees.find_cycle([-1, *rest]) is None), rest


def test_error_no_root():
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 3, "root"), word(3, "c", 1, "obj"))
    check_error(lines, "no root: no word has HEAD 0", 8)


def test_error_several_roots_in_conllu():
    lines = middle(word(1, "a", 0, "root"), word(2, "b", 1, "dep"), word(3, "c", 0, "root"))
    check_error(lines, "several roots: 2 words have HEAD 0 (allowed in CoNLL-X, not in CoNLL-U: read the file as CoNLL-X, --from conllx)", 10)
    assert read_all(doc(lines).replace(S3.encode(), S1.encode()), "conllx")[1].head_list == [-1, 0, 1, 0]


def test_error_empty_sentence():
    check_error(middle("# text = nothing"), "empty sentence: comments but no word lines", 7)
    check_error(middle(extra("1-2")), "empty sentence: no word lines", 8)


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"])
def test_error_invalid_utf8(bad):
    lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 0, "root"), word(3, "cXX", 2, "obj"))
    data = doc(lines).replace(b"XX", bad)
    err = error_of(data)
    assert (err.message, err.line, err.sent_id) == ("invalid UTF-8", 10, "bad")
    assert err.raw == ("\n".join(lines) + "\n\n").encode().replace(b"XX", bad)
    # Valid multi-byte text around it changes nothing.
    ok = doc(lines).replace(b"XX", "é€😀".encode())
    assert read_all(ok)[1].forms[3] == "cé€😀"


def test_invalid_utf8_split_across_ascii_is_found():
    # A lone lead byte and, later, a lone continuation byte: each invalid, valid if glued together.
    lines = middle(word(1, "aXX", 2, "nsubj"), word(2, "YYb", 0, "root"))
    data = doc(lines).replace(b"XX", b"\xc3").replace(b"YY", b"\xa9")
    err = error_of(data)
    assert (err.message, err.line) == ("invalid UTF-8", 8)


def test_invalid_utf8_in_a_comment():
    data = doc(GOOD_MIDDLE).replace(b"# sent_id = bad", b"# sent_id = bad\n# text = \xff")
    err = error_of(data)
    assert (err.message, err.line) == ("invalid UTF-8", 8)


def test_error_raw_is_the_whole_first_sentence_with_its_prefix():
    data = b"\n\n" + "\n".join(middle(word(1, "a", 1, "root"))).encode() + b"\n\n" + S1.encode()
    err = error_of(data)
    assert err.line == 4 and err.raw == data[: -len(S1)]


# ---------------------------------------------------------------------------
# on_error: skip and go on
# ---------------------------------------------------------------------------
def test_on_error_skips_the_bad_sentence_and_continues():
    bad_lines = middle(word(1, "a", 2, "nsubj"), word(2, "b", 2, "root"))
    data = doc(bad_lines) + doc(middle("# only a comment"))
    for chunk in CHUNK_SIZES:
        errors: list[TreebankError] = []
        sentences = fast(data, chunk=chunk, on_error=errors.append)
        assert [s.sent_id for s in sentences] == ["s1", "s3", "s1", "s3"]
        assert [(e.line, e.message) for e in errors] == [
            (9, "no root: no word has HEAD 0"),  # the line of a word on the cycle
            (24, "empty sentence: comments but no word lines"),
        ]
        assert errors[0].raw == ("\n".join(bad_lines) + "\n\n").encode()
        # Kept sentences plus rejected bytes give back the input.
        pieces = sorted([(s.line, s.raw) for s in sentences] + [(e.line, e.raw) for e in errors])
        assert b"".join(p[1] for p in pieces) == data
    ref_errors: list[TreebankError] = []
    reference(data, on_error=ref_errors.append)
    assert [(e.line, e.message, e.raw) for e in ref_errors] == [(e.line, e.message, e.raw) for e in errors]


def test_without_on_error_the_sentences_before_the_error_are_yielded():
    data = doc(middle(word(1, "a", 1, "root")))
    reader = read_conll(io.BytesIO(data), "t.conllu")
    assert next(reader).sent_id == "s1"
    with pytest.raises(TreebankError, match="no root"):
        next(reader)


def test_unknown_format_is_refused():
    with pytest.raises(ValueError):
        read_conll(io.BytesIO(b""), "t", "ptb")


# ---------------------------------------------------------------------------
# writing: set_tree rewrites only HEAD and DEPREL of the changed words
# ---------------------------------------------------------------------------
TRICKY = "\r\n".join([
    "# sent_id = tricky",
    "# text = a  b c",
    extra("1-2", "ab"),
    word(1, "a  x", 3, "nsubj", lemma=" a ", misc="Sp ace=Yes"),
    word(2, "b", 1, "flat"),
    extra("2.1", "e"),
    word(3, "c", 0, "root", feats="A=B|C=D", deps="0:root"),
    word(4, "d", 3, "obj", misc="_ "),
]) + "\r\n\r\n"


def test_set_tree_rewrites_only_head_and_deprel_of_changed_words():
    (s,) = read_all(TRICKY.encode())
    assert s.forms[1] == "a  x" and s.lemmas[1] == " a "
    s.set_tree([-1, 3, 1, 0, 3], ["", "nsubj", "compound", "root", "obj"])
    assert s.changed and s.raw == TRICKY.encode()
    out = s.to_bytes()
    old_lines, new_lines = TRICKY.split("\n"), out.decode().split("\n")
    assert len(old_lines) == len(new_lines)
    diff = [(o, n) for o, n in zip(old_lines, new_lines) if o != n]
    assert diff == [(old_lines[4], old_lines[4].replace("\t1\tflat\t", "\t1\tcompound\t"))]
    (again,) = read_all(out)
    assert again.head_list == [-1, 3, 1, 0, 3] and again.deprels[2] == "compound"
    assert s.to_text() == out.decode()
    assert s.word_lines()[1] == new_lines[4]
    s.set_tree([-1, 4, 1, 0, 3])  # heads only; the deprels stay the current ones
    out2 = s.to_bytes()
    assert b"4\tnsubj" in out2 and b"\t1\tcompound\t" in out2 and fast(out2)[0].head_list == [-1, 4, 1, 0, 3]


def test_set_tree_with_the_same_tree_changes_nothing():
    (s,) = read_all(TRICKY.encode())
    s.set_tree(s.heads, s.deprels)
    assert not s.changed and s.to_bytes() is s.raw
    with pytest.raises(ValueError):
        s.set_tree([-1, 0])


def test_set_tree_on_a_real_file_keeps_everything_else():
    path = shared_path("data", "ud-2.2", "UD_German-GSD", "de_gsd-ud-dev.conllu")
    sentences = list(read_treebank(str(path)))[:200]
    for s in sentences:
        n = len(s)
        s.set_tree([-1, *range(2, n + 1), 0], ["", *(["chain"] * (n - 1)), "root"])
    out = b"".join(s.to_bytes() for s in sentences)
    original = b"".join(s.raw for s in sentences)
    again = fast(out)
    assert [s.head_list for s in again] == [[-1, *range(2, len(s) + 1), 0] for s in sentences]
    old_lines, new_lines = original.split(b"\n"), out.split(b"\n")
    assert len(old_lines) == len(new_lines)
    for o, n in zip(old_lines, new_lines):
        oc, nc = o.split(b"\t"), n.split(b"\t")
        if len(oc) == 10 and oc[0].isdigit():
            assert oc[:6] + oc[8:] == nc[:6] + nc[8:]
        else:
            assert o == n


def test_add_comment_goes_after_the_comments_before_the_words():
    (s,) = read_all(TRICKY.encode())
    s.add_comment("note = 1")
    lines = s.to_bytes().decode().split("\r\n")
    assert lines[2] == "# note = 1" and lines[3].startswith("1-2\t")
    assert not s.changed and s.comments[-1] == "# note = 1"
    s.set_tree([-1, 3, 1, 0, 3], ["", "nsubj", "compound", "root", "obj"])
    (again,) = fast(s.to_bytes())
    assert again.comments[-1] == "# note = 1" and again.deprels[2] == "compound"


def test_to_conllx_drops_comments_and_extra_lines():
    (s,) = read_all(TRICKY.encode())
    out = to_conllx_bytes(s)
    assert out.startswith(b"1\ta  x\t a \t") and out.endswith(b"\t_\t_\r\n\r\n")
    (x,) = read_all(out, "conllx")
    assert x.head_list == s.head_list and x.forms == s.forms


# ---------------------------------------------------------------------------
# property test: random sentences
# ---------------------------------------------------------------------------
FIELD = st.text(  # anything but a field or line separator, or a NUL (binary data)
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r\x00"), min_size=0, max_size=5,
)
LABEL = st.text(  # a DEPREL: one word, as an action can spell it
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00").filter(lambda c: not c.isspace()),
    min_size=1, max_size=5,
)


@st.composite
def sentences(draw, fmt: str):
    n = draw(st.integers(1, 10))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] + [0] * n
    for k in range(1, n):
        heads[order[k]] = order[draw(st.integers(0, k - 1))]
    if fmt == "conllx":
        for k in range(1, n):
            if draw(st.integers(0, 4)) == 0:
                heads[order[k]] = 0
    rels = [""] + [draw(LABEL) for _ in range(n)]
    forms = [""] + [draw(FIELD) for _ in range(n)]
    lines = ["#" + draw(FIELD) for _ in range(draw(st.integers(0, 2)))]
    mwt: dict[int, int] = {}
    empties = [0] * (n + 1)
    if fmt == "conllu":
        i = 1
        while i < n:
            if draw(st.integers(0, 3)) == 0:
                end = draw(st.integers(i + 1, min(n, i + 2)))
                mwt[i] = end
                i = end + 1
            else:
                i += 1
        empties = [draw(st.integers(0, 1)) if draw(st.integers(0, 4)) == 0 else 0 for _ in range(n + 1)]

    def rest(k: int) -> str:
        return "\t".join(draw(FIELD) for _ in range(k))

    for i in range(n + 1):
        if i:
            if i in mwt:
                lines.append(f"{i}-{mwt[i]}\t" + rest(9))
            lines.append(f"{i}\t{forms[i]}\t{rest(4)}\t{heads[i]}\t{rels[i]}\t{rest(2)}")
        for k in range(empties[i]):
            lines.append(f"{i}.{k + 1}\t" + rest(9))
    return lines, heads, rels, forms


@st.composite
def documents(draw):
    fmt = draw(st.sampled_from(["conllu", "conllx"]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    blank = st.sampled_from(["", " ", "\t", " \t "]).map(lambda b: b + end)
    sents = draw(st.lists(sentences(fmt), min_size=1, max_size=4))
    text = "".join(draw(st.lists(blank, max_size=2)))
    for k, (lines, *_rest) in enumerate(sents):
        text += end.join(lines)
        last = k == len(sents) - 1
        if last and draw(st.integers(0, 3)) == 0:
            break  # no final newline
        text += end + "".join(draw(st.lists(blank, min_size=0 if last else 1, max_size=3)))
    return fmt, text.encode("utf-8"), sents


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([1, 5, 17, 100, 1 << 20]))
def test_random_documents_round_trip_and_parse_to_the_generated_trees(document, chunk):
    fmt, data, sents = document
    got = fast(data, fmt, chunk)
    assert b"".join(s.to_bytes() for s in got) == data
    assert [s.head_list for s in got] == [heads for _, heads, _, _ in sents]
    assert [s.deprels for s in got] == [rels for _, _, rels, _ in sents]
    assert [s.forms for s in got] == [forms for _, _, _, forms in sents]
    assert [[ln.rstrip("\r") for ln in s.lines] for s in got] == [lines for lines, *_r in sents]
    assert [summary(s) for s in got] == [summary(s) for s in reference(data, fmt)]
    # Changing every tree rewrites HEAD and DEPREL only; the result reads back.
    for s in got:
        n = len(s)
        s.set_tree([-1, 0, *([1] * (n - 1))], ["", "root", *(["x"] * (n - 1))])
    again = fast(b"".join(s.to_bytes() for s in got), fmt, chunk)
    assert [s.head_list for s in again] == [[-1, 0, *([1] * (len(s) - 1))] for s in got]
    assert [s.forms for s in again] == [s.forms for s in got]


MUTATIONS = [b"\t", b"\n", b"\r\n", b"0", b"1", b"3", b"-", b".", b"#", b" ", b"\r", b"\xff", b"\xc3", b"\x01", b""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(MUTATIONS), st.booleans()), min_size=1, max_size=3),
       st.sampled_from([1, 13, 1 << 20]))
def test_damaged_documents_give_the_same_sentences_and_errors_as_the_reference(document, edits, chunk):
    fmt, data, _ = document
    for pos, new, insert in edits:
        pos %= len(data) + 1
        data = data[:pos] + new + data[pos + (not insert):]
    fast_errors: list[TreebankError] = []
    ref_errors: list[TreebankError] = []
    got = fast(data, fmt, chunk, fast_errors.append)
    want = reference(data, fmt, ref_errors.append)
    assert [summary(s) for s in got] == [summary(s) for s in want]
    assert [(e.line, e.message, e.raw, e.sent_id) for e in fast_errors] == [
        (e.line, e.message, e.raw, e.sent_id) for e in ref_errors
    ]
    # Nothing is lost: kept and rejected sentences together are the input (unless it is all blank).
    pieces = sorted([(s.line, s.raw) for s in got] + [(e.line, e.raw) for e in fast_errors])
    if pieces:
        assert b"".join(p[1] for p in pieces) == data
