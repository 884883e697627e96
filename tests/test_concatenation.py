"""Several input files make one valid output, whatever the end of each file.

The last sentence of a CoNLL file may lack its blank line, or even its final
newline: on its own it is copied byte for byte, but before another file's
sentence the separator must be there, or the two sentences run together (one
sentence with a broken ID sequence). The expected bytes are built here by
hand from the inputs.
"""

from __future__ import annotations

import pytest

from conftest import SAMPLE_DATA, run_cli

EN = SAMPLE_DATA / "en_sample.conllu"
BAD = b"# sent_id = bad\n1\ta\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n"  # a cycle, no blank line

ENDINGS = {  # how the first file ends, and the separator it lacks before the next sentence
    "no blank line": (b"\n", b"\n"),
    "no final newline": (b"", b"\n\n"),
}


def first_file(tmp_path, ending: bytes, crlf: bool = False):
    text = EN.read_bytes().rstrip(b"\n") + ending
    if crlf:
        text = text.replace(b"\n", b"\r\n")
    path = tmp_path / "first.conllu"
    path.write_bytes(text)
    return path


@pytest.mark.parametrize("ending", sorted(ENDINGS))
@pytest.mark.parametrize("command", [["filter"], ["deprojectivize"], ["projectivize", "--method", "pseudo"]])
def test_files_concatenate_to_valid_conllu(tmp_path, ending, command):
    end, missing = ENDINGS[ending]
    first = first_file(tmp_path, end)
    result = run_cli(*command, first, EN) if command[0] != "projectivize" else run_cli(command[0], first, EN, *command[1:])
    assert result.returncode == 0, result.stderr
    if command[0] == "filter":
        assert result.stdout == first.read_bytes() + missing + EN.read_bytes()
    out = tmp_path / "out.conllu"
    out.write_bytes(result.stdout)
    stats = run_cli("stats", out, "--format", "tsv")
    assert stats.returncode == 0, stats.stderr
    assert stats.stdout.decode().splitlines()[1].split("\t")[1] == str(2 * EN.read_text().count("# sent_id"))


def test_the_separator_added_keeps_crlf(tmp_path):
    first = first_file(tmp_path, b"\n", crlf=True)
    result = run_cli("filter", first, EN)
    assert result.returncode == 0, result.stderr
    assert result.stdout == first.read_bytes() + b"\r\n" + EN.read_bytes()


def test_a_single_file_keeps_its_end(tmp_path):
    for end in (b"\n", b""):
        first = first_file(tmp_path, end)
        assert run_cli("filter", first).stdout == first.read_bytes()


def test_rejects_of_several_files_read_back_one_by_one(tmp_path):
    one, two = tmp_path / "one.conllu", tmp_path / "two.conllu"
    one.write_bytes(EN.read_bytes() + BAD)  # the bad sentence last, without its blank line
    two.write_bytes(BAD + b"\n" + EN.read_bytes())
    rejects = tmp_path / "rejects.conllu"
    result = run_cli("filter", one, two, "--on-error", "skip", "--rejects", rejects, "-o", tmp_path / "out.conllu")
    assert result.returncode == 0, result.stderr
    assert rejects.read_bytes() == BAD + b"\n" + BAD + b"\n"


@pytest.mark.parametrize("suffix, sentence", [
    (".conllu", b"# sent_id = b\n1\tb\tb\tX\tX\t_\t0\troot\t_\t_\n\n"),
    (".mrg", b"(S (X b))\n"),
])
def test_a_byte_order_mark_of_a_later_file_is_not_copied_into_the_middle(tmp_path, suffix, sentence):
    """A BOM marks the start of a file; kept after the first file's text it is a character in a sentence (an
    unreadable output). The first file's own BOM stays: the output starts with it."""
    bom = b"\xef\xbb\xbf"
    one, two = tmp_path / f"one{suffix}", tmp_path / f"two{suffix}"
    one.write_bytes(bom + sentence)
    two.write_bytes(bom + sentence)
    result = run_cli("filter", one, two)
    assert result.returncode == 0, result.stderr
    assert result.stdout == bom + sentence + sentence
