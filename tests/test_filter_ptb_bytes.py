"""``filter`` on Penn Treebank input is lossless when it only selects trees.

A kept tree is written as the text it occupies in the input (its lines,
indentation and line ends), with the whitespace between it and the next
tree when that tree is written too: selecting every tree gives the input
byte for byte. A tree sharing its line with the next tree is its own text,
then the line's end, when the next tree is not written. An option that
changes trees (``--drop-traces``, ``--strip-functions``,
``--remove-wrapper``) writes one tree per line. The expected bytes are
written out by hand here. The other PTB commands' ``--rejects`` get a tree
they refuse after reading it as its text too.
"""

from __future__ import annotations

import gzip

import pytest

from conftest import SAMPLE_DATA, run_cli, shared_path

# Three trees as the WSJ files lay them out: a blank line first, indented lines, two spaces before some line ends.
CAT = "( (S \n    (NP-SBJ (DT The) (NN cat) )\n    (VP (VBD sat) )\n    (. .) ))\n"  # 4 words
IT = "( (S \n    (NP-SBJ (PRP It) )\n    (VP (VBD ran) )))\n"  # 2 words
DOG = "( (S (NP-SBJ (DT A)\t(NN dog) )  (VP (VBD barked) (ADVP (RB loudly) )) (. .) ))\n"  # 5 words
INDENTED = "\n" + CAT + IT + "\n" + DOG


def filtered(tmp_path, data: bytes, *args: str, name: str = "in.mrg"):
    path = tmp_path / name
    path.write_bytes(data)
    result = run_cli("filter", path, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("text", [
    INDENTED,
    INDENTED.replace("\n", "\r\n"),
    INDENTED.rstrip("\n"),  # no final newline
    INDENTED + "\n\n",  # blank lines after the last tree
    "(S (A a) (B b)) (S (C c))\n  (S (D d))   (S (E e) (F f) (G g))",  # several trees on a line, odd spacing
])
def test_every_tree_selected_gives_the_input_bytes(tmp_path, text):
    data = text.encode()
    assert filtered(tmp_path, data) == data
    assert filtered(tmp_path, data, "--min-words", "0", "--max-words", "100") == data


def test_a_subset_gives_the_kept_trees_own_text(tmp_path):
    data = INDENTED.encode()
    assert filtered(tmp_path, data, "--max-words", "2").decode() == IT + "\n"  # the blank line after it kept
    assert filtered(tmp_path, data, "--min-words", "5").decode() == DOG
    assert filtered(tmp_path, data, "--min-words", "3").decode() == "\n" + CAT + DOG
    crlf = INDENTED.replace("\n", "\r\n").encode()
    assert filtered(tmp_path, crlf, "--min-words", "5") == DOG.replace("\n", "\r\n").encode()


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_a_tree_sharing_its_line_is_its_own_text_then_the_line_end(tmp_path, end):
    text = f"(S (A a) (B b))  (S (C c)){end}(S (D d) (E e) (F f)) (S (G g) (H h)){end}"
    data = text.encode()
    assert filtered(tmp_path, data, "--min-words", "2").decode() == (
        f"(S (A a) (B b)){end}(S (D d) (E e) (F f)) (S (G g) (H h)){end}")
    assert filtered(tmp_path, data, "--max-words", "1").decode() == f"(S (C c)){end}"
    assert filtered(tmp_path, data, "--max-words", "2").decode() == (
        f"(S (A a) (B b))  (S (C c)){end}(S (G g) (H h)){end}")
    assert filtered(tmp_path, data, "--min-words", "3").decode() == f"(S (D d) (E e) (F f)){end}"


def test_ids_select_trees_by_their_number_in_their_file(tmp_path):
    """As a CoNLL sentence without sent_id: the n-th tree of its file is "n", refused trees counted too."""
    text = "(S (A a))\n(S (B b)) (X ) (S (C c)\n  (D d))\n"
    ids = tmp_path / "ids.txt"
    ids.write_text("4\n2\n")
    assert filtered(tmp_path, text.encode(), "--ids", str(ids), "--on-error", "skip").decode() == (
        "(S (B b))\n(S (C c)\n  (D d))\n")
    assert filtered(tmp_path, text.encode(), "--ids", str(ids), "--on-error", "skip", "--remove-wrapper").decode() == (
        "(S (B b))\n(S (C c) (D d))\n")


def test_rejects_get_the_refused_trees_input_text(tmp_path):
    bad = "( (S\n    (NP-SBJ )\n    (VP (VBD ran) )))\n"  # a constituent without children
    text = "(S (A a))\n" + bad + "\n(S (B b)) (X ) (S (C c))\n"
    path = tmp_path / "in.mrg"
    path.write_text(text)
    rejects = tmp_path / "rejects.mrg"
    result = run_cli("filter", path, "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "(S (A a))\n(S (B b))\n(S (C c))\n"
    assert rejects.read_text() == bad + "(X )\n"


@pytest.mark.parametrize("option", [[], ["--strip-functions"], ["--drop-traces"]], ids=["copy", "strip", "drop"])
def test_a_refused_tree_and_stray_text_on_its_line_go_to_rejects_once_each(tmp_path, option):
    """A changing option read trees without their text: --rejects got the refused tree's whole line, the stray
    text on it included, and that text again as its own report."""
    path = tmp_path / "in.mrg"
    path.write_text("( (S (NP) (VP (VB b))) ) junk\n( (S (NN d)) )\n")
    rejects = tmp_path / "rejects.mrg"
    result = run_cli("filter", path, *option, "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == 0, result.stderr
    assert rejects.read_text() == "( (S (NP) (VP (VB b))) )\njunk\n"


BARE_WORD = "(  (S   (NP (DT the) dog)\r\n\t(VP (VBD ran))) \r\n )\r\n"  # 'dog' has no POS tag: refused after reading


@pytest.mark.parametrize("command", [["stats"], ["annotate", "--system", "top-down"], ["oracle", "--system", "in-order"],
                                     ["oracle", "--system", "top-down", "--format", "jsonl"]],
                         ids=["stats", "annotate", "oracle", "oracle-jsonl"])
def test_a_tree_refused_after_reading_goes_to_rejects_as_its_own_text(tmp_path, command):
    """A word without a POS tag is found by the command, not the reader: its --rejects got the tree cleaned
    (traces, functions and the wrapper gone) on one line; now the tree as it is in the input. The rest of the
    run is as without --rejects."""
    path = tmp_path / "in.mrg"
    path.write_bytes((CAT + BARE_WORD + DOG).encode())
    rejects = tmp_path / "rejects.mrg"
    plain = run_cli(*command, path, "--on-error", "skip")
    result = run_cli(*command, path, "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == plain.returncode == 0, result.stderr
    assert rejects.read_bytes() == BARE_WORD.encode()
    assert result.stdout == plain.stdout and "skipped 1 bad sentence (first: " in result.stderr.decode()


def test_rejects_get_the_text_outside_brackets_each_line_of_it_counted(tmp_path):
    """Text outside every bracket is skipped as an error: --rejects gets it (its own text, one line's stretch at a
    time, each counted), so that the rejects hold everything the output lacks."""
    text = "(S (A a))\n*x* a header line\n   and its next\n(S (B b)) ) stray (S (C c))\n"
    path = tmp_path / "in.mrg"
    path.write_text(text)
    rejects = tmp_path / "rejects.mrg"
    for option in ((), ("--strip-functions",)):
        result = run_cli("filter", path, *option, "--on-error", "skip", "--rejects", rejects)
        assert result.returncode == 0, result.stderr
        assert result.stdout.decode() == "(S (A a))\n(S (B b))\n(S (C c))\n"
        assert rejects.read_text() == "*x* a header line\nand its next\n) stray\n"
        assert result.stderr.decode().startswith(f"skipped 3 bad sentences (first: {path}:2: leaf '*x*' outside")


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b" \n\t\n\n", b"\xef\xbb\xbf\r\n"])
@pytest.mark.parametrize("suffix", [".mrg", ".conllu"])
def test_an_input_of_nothing_but_blanks_gives_no_output_and_no_complaint(tmp_path, data, suffix):
    """As CoNLL-U input of only blank lines (or a byte order mark) is no sentence, so is PTB input."""
    path = tmp_path / f"blank{suffix}"
    path.write_bytes(data)
    rejects = tmp_path / "rejects.out"
    result = run_cli("filter", path, "--on-error", "skip", "--rejects", rejects)
    assert (result.returncode, result.stdout, result.stderr, rejects.read_bytes()) == (0, b"", b"", b"")


def test_a_tree_never_closed_is_refused_alone_and_the_next_trees_copied(tmp_path):
    """A WSJ tree lacking its last ``)``: the next tree (``( (`` opening a line) starts a tree of its own, so
    --on-error skip refuses only the broken tree (its text up to the next tree, in --rejects) and copies the rest."""
    broken = "( (S \n    (NP-SBJ (PRP It) )\n    (VP (VBD ran) ))\n"  # the outer bracket is not closed
    path = tmp_path / "in.mrg"
    path.write_text(CAT + broken + "\n" + DOG)
    failed = run_cli("filter", path)
    assert failed.returncode == 2
    assert failed.stderr.decode() == (f"{path}:5: unbalanced brackets: the tree starting on this line is not closed "
                                      "(1 '(' still open at line 9, where the next tree starts)\n")
    rejects = tmp_path / "rejects.mrg"
    result = run_cli("filter", path, "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == CAT + DOG
    assert rejects.read_text() == broken + "\n"


@pytest.mark.parametrize("option", ["--drop-traces", "--strip-functions", "--remove-wrapper"])
def test_an_option_that_changes_trees_writes_one_per_line(tmp_path, option):
    data = INDENTED.replace("\n", "\r\n").encode()
    lines = {
        "--drop-traces": ["( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat)) (. .)))",
                          "( (S (NP-SBJ (PRP It)) (VP (VBD ran))))",
                          "( (S (NP-SBJ (DT A) (NN dog)) (VP (VBD barked) (ADVP (RB loudly))) (. .)))"],
        "--strip-functions": ["( (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))",
                              "( (S (NP (PRP It)) (VP (VBD ran))))",
                              "( (S (NP (DT A) (NN dog)) (VP (VBD barked) (ADVP (RB loudly))) (. .)))"],
        "--remove-wrapper": ["(S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat)) (. .))",
                             "(S (NP-SBJ (PRP It)) (VP (VBD ran)))",
                             "(S (NP-SBJ (DT A) (NN dog)) (VP (VBD barked) (ADVP (RB loudly))) (. .))"],
    }[option]
    assert filtered(tmp_path, data, option).decode() == "".join(line + "\n" for line in lines)
    assert filtered(tmp_path, data, option, "--max-words", "2").decode() == lines[1] + "\n"


def test_compressed_input_gives_its_decompressed_bytes(tmp_path):
    data = INDENTED.replace("\n", "\r\n").encode()
    assert filtered(tmp_path, gzip.compress(data), name="in.mrg.gz") == data
    assert filtered(tmp_path, gzip.compress(data), "--max-words", "2", name="in.mrg.gz") == (
        IT + "\n").replace("\n", "\r\n").encode()


def test_several_files_end_to_end(tmp_path):
    """A file without a final newline is followed by one before the next file's tree (as for CoNLL)."""
    first, second = tmp_path / "a.mrg", tmp_path / "b.mrg"
    first.write_bytes(b"(S (A a))\n(S (B b))")
    second.write_bytes(b"\n(S (C c))\n")
    result = run_cli("filter", first, second)
    assert result.returncode == 0 and result.stdout == b"(S (A a))\n(S (B b))\n\n(S (C c))\n"


def test_real_treebank_files_are_copied_byte_for_byte(tmp_path):
    paths = [SAMPLE_DATA / "wsj_sample.mrg", *sorted(shared_path("data", "ptb-sample").glob("wsj_00[0-2]*.mrg"))]
    for path in paths:
        result = run_cli("filter", path)
        assert result.returncode == 0 and result.stdout == path.read_bytes(), path


def test_random_layouts_read_back_whole(tmp_path):
    """Trees laid out at random (indented, split over lines, several on a line, blank lines, CRLF, no final
    newline), some malformed: each refused tree's ``raw`` is its own text, the trees and their lines are those
    read without ``source_text``, and without a malformed tree the trees' texts written in order are the input."""
    import io
    import random

    from treetool.formats.ptb import Bracket, read_ptb_with_lines, tree_to_line
    from treetool.formats.ptb_source import SourceJoiner

    rng = random.Random(7)
    good = ["(S (A a) (B b))", "( (S\n  (NP (DT the)\n      (NN cat))\n  (VP (V sat)) ))", "(X\tx)", "(T (U u) )"]
    bad = ["(S (A ))", "(S (A a) ( (B b)))", "( )"]
    for _ in range(300):
        end = rng.choice(["\n", "\r\n"])
        parts, kept, refused = [rng.choice(["", "\n", " \n\n"])], [], []
        for _ in range(rng.randint(1, 6)):
            is_bad = rng.random() < 0.2
            tree = rng.choice(bad if is_bad else good).replace("\n", end)
            (refused if is_bad else kept).append(tree)
            parts += [tree, rng.choice([" ", "  ", end, end + end, "\t" + end])]
        if rng.random() < 0.3:
            parts[-1] = ""
        text = "".join(parts).replace("\n", end).replace("\r\r", "\r")
        errors = []
        found = list(read_ptb_with_lines(io.StringIO(text, newline=""), node=Bracket, source_text=True,
                                         on_error=errors.append))
        plain = list(read_ptb_with_lines(io.StringIO(text, newline=""), node=Bracket, on_error=lambda e: None))
        assert [(line, tree_to_line(t.tree)) for line, t in found] == [(line, tree_to_line(t)) for line, t in plain]
        assert len(found) == len(kept) and len(errors) == len(refused)
        assert [e.raw.strip() for e in errors] == refused
        joiner = SourceJoiner()
        written = "".join(joiner.text(t) for _, t in found) + joiner.end()
        if not refused:
            assert written == text


@pytest.mark.parametrize("selection", [[], ["--max-words", "2"], ["--min-words", "3"]])
def test_shards_concatenate_to_one_run(tmp_path, selection):
    """``--shard K/N`` outputs, concatenated, are one run's output (the blank lines after a tree belong to it, so a
    shard that ends with that tree ends with them); here every tree starts its line."""
    path = tmp_path / "in.mrg"
    path.write_bytes((INDENTED * 7).replace("\n", "\r\n").encode())
    whole = run_cli("filter", path, *selection)
    shards = [run_cli("filter", path, *selection, "--shard", f"{k}/5") for k in range(1, 6)]
    assert whole.returncode == 0 and all(shard.returncode == 0 for shard in shards)
    assert b"".join(shard.stdout for shard in shards) == whole.stdout
    assert sum(bool(shard.stdout) for shard in shards) > 2


def test_text_outside_the_trees_is_not_held_in_memory():
    """Text the reader skips as an error (a file that is no PTB, read with --on-error skip) is not copied, so
    none of it is kept while the next bracket is awaited: the pieces of ten megabytes of it take a few kilobytes."""
    import tracemalloc

    from treetool.formats.ptb import opens_next_tree
    from treetool.formats.ptb_source import TreeTexts

    junk = "a line that is no tree " * 4 + "\n"  # 93 characters

    def lines():
        yield "(S (A a))\n"
        for _ in range(100_000):
            yield junk
        yield "(S (B b))\n"

    texts = TreeTexts(opens_next_tree)
    tracemalloc.start()
    try:
        for _ in texts.lines(lines()):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_rejects_of_several_files_stay_apart(tmp_path):
    """A file's last tree, refused, may lack its final newline (an unclosed bracket ends its file): the next
    file's refused tree starts a line of its own, or the two would be read back as one unclosed bracket."""
    one, two = tmp_path / "one.mrg", tmp_path / "two.mrg"
    one.write_bytes(b"(S (A a))\n(S (B b)")
    two.write_bytes(b"(X )\n(S (C c))\n")
    rejects = tmp_path / "rejects.mrg"
    result = run_cli("filter", one, two, "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"(S (A a))\n(S (C c))\n"
    assert rejects.read_bytes() == b"(S (B b)\n(X )\n"
