"""``filter``: a CoNLL conversion names every column whose values it drops; an ``--ids`` file as editors write it.

The expected counts are read from the input text directly (word lines: an
integer ID), not through the library.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, run_cli

EN = SAMPLE_DATA / "en_sample.conllu"
COLUMNS = {"conllu": ("DEPS", "MISC"), "conllx": ("PHEAD", "PDEPREL")}


def last_column_values(path: Path) -> list[int]:
    """How many word lines have a value (not ``_``) in the 9th and in the 10th column."""
    counts = [0, 0]
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            for i in (0, 1):
                counts[i] += cols[8 + i] != "_"
    return counts


def column_warnings(stderr: bytes) -> dict[str, int]:
    return {name: int(n) for n, name in re.findall(r"^warning: (\d+) (\w+) values dropped", stderr.decode(), re.M)}


def conllx_with_projective_heads(tmp_path: Path) -> Path:
    """A CoNLL-X file with PHEAD/PDEPREL on some words (the sample's own columns 9-10 are empty)."""
    rows = ["1\tA\ta\tD\tDT\t_\t2\tdet\t2\tdet", "2\tdog\tdog\tN\tNN\t_\t3\tnsubj\t_\t_",
            "3\tbarks\tbark\tV\tVBZ\t_\t0\tROOT\t0\tROOT"]
    path = tmp_path / "p.conllx"
    path.write_text("\n".join(rows) + "\n\n" + "\n".join(rows[:1] + ["2\tb\tb\tN\tNN\t_\t0\tROOT\t_\t_"]) + "\n\n")
    return path


@pytest.mark.parametrize("source,target", [("en", "conllx"), ("pheads", "conllu")])
def test_a_conversion_names_every_column_it_drops_with_counts(tmp_path, source, target):
    path = EN if source == "en" else conllx_with_projective_heads(tmp_path)
    result = run_cli("filter", path, "--to", target, "-o", tmp_path / f"out.{target}")
    assert result.returncode == 0, result.stderr
    expected = {name: n for name, n in zip(COLUMNS[path.suffix[1:]], last_column_values(path)) if n}
    assert expected and column_warnings(result.stderr) == expected
    out = (tmp_path / f"out.{target}").read_text(encoding="utf-8")
    assert last_column_values(tmp_path / f"out.{target}") == [0, 0] and out


def test_nothing_dropped_no_column_warning(tmp_path):
    path = tmp_path / "plain.conllu"
    path.write_text("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    result = run_cli("filter", path, "--to", "conllx")
    assert result.returncode == 0 and result.stderr == b""


@pytest.mark.parametrize("encoding", ["bom", "crlf", "bom+crlf+blank"])
def test_an_ids_file_as_editors_write_it_matches_every_id(tmp_path, encoding):
    lines = ["en-2", "en-1"]
    text = ("\r\n" if "crlf" in encoding else "\n").join(lines + ([""] if "blank" in encoding else []) + [""])
    ids = tmp_path / "ids.txt"
    ids.write_bytes(("\ufeff" if "bom" in encoding else "").encode() + text.encode())
    result = run_cli("filter", EN, "--ids", ids)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert re.findall(r"^# sent_id = (.*)$", result.stdout.decode(), re.M) == ["en-1", "en-2"]


def test_ids_select_sentences_without_sent_id_by_the_position_diff_names_them(tmp_path):
    first = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    second = "1\tb\t_\t_\t_\t_\t2\tx\t_\t_\n2\tc\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    gold, other = tmp_path / "gold.conllu", tmp_path / "other.conllu"
    gold.write_text(first + second)
    other.write_text(first + second.replace("\t2\tx", "\t0\tx").replace("\t0\troot\t_\t_\n\n", "\t1\troot\t_\t_\n\n"))
    assert run_cli("diff", gold, other).stdout.startswith(b"sentence 2 (")
    ids = tmp_path / "ids.txt"
    ids.write_text("2\n")
    result = run_cli("filter", gold, "--ids", ids)
    assert (result.returncode, result.stdout, result.stderr) == (0, second.encode(), b"")


def test_filter_copies_unparsed_sentences_unless_a_selection_needs_heads(tmp_path):
    two = "# sent_id = u1\r\n1\ta\t_\t_\t_\t_\t_\t_\t_\t_\r\n2\tb\t_\t_\t_\t_\t_\t_\t_\t_\r\n\r\n"
    one = "# sent_id = u2\r\n# text = c\r\n1\tc\t_\t_\t_\t_\t_\t_\t_\t_\r\n\r\n\r\n"
    path = tmp_path / "tokenised.conllu"
    path.write_bytes((two + one).encode())
    ids = tmp_path / "ids.txt"
    ids.write_text("u1\n")
    for args, expected in [((), two + one), (("--max-words", "1"), one), (("--min-words", "2"), two),
                           (("--ids", ids), two)]:
        result = run_cli("filter", path, *args)
        assert (result.returncode, result.stdout, result.stderr) == (0, expected.encode(), b""), args
    refused = run_cli("filter", path, "--non-projective")
    assert refused.returncode == 2 and refused.stdout == b""
    assert refused.stderr.decode().startswith(f"{path}:2: ") and "--non-projective needs its heads" in refused.stderr.decode()
    rejects = tmp_path / "rejects.conllu"
    skipped = run_cli("filter", path, "--projective", "--on-error", "skip", "--rejects", rejects)
    assert skipped.returncode == 0 and skipped.stdout == b"" and rejects.read_bytes() == (two + one).encode()
    half = tmp_path / "half.conllu"  # a HEAD '_' beside numeric heads is malformed, whatever the selection
    half.write_text("1\ta\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    malformed = run_cli("filter", half, "--max-words", "5")
    assert malformed.returncode == 2 and malformed.stderr.decode().startswith(f"{half}:1: HEAD must be")


def test_unparsed_sentences_convert_between_conll_formats_with_their_heads_left_out(tmp_path):
    """A tokenised CoNLL-X file converted to CoNLL-U: a sentence not yet parsed has no root to count (it was
    refused: '0 words attached to the root'); both ways the HEAD and DEPREL stay '_'."""
    words = "1\tNo\tno\tINTJ\t_\t_\t_\t_\t_\t_\n2\tway\tway\tNOUN\t_\t_\t_\t_\t_\t_\n\n"
    source = tmp_path / "tokenised.conllx"
    source.write_text(words)
    to_conllu = run_cli("filter", source, "--to", "conllu")
    assert (to_conllu.returncode, to_conllu.stdout, to_conllu.stderr) == (0, words.encode(), b"")
    back = tmp_path / "tokenised.conllu"
    back.write_text("# sent_id = t1\n" + words)
    to_conllx = run_cli("filter", back, "--to", "conllx")
    assert to_conllx.returncode == 0 and to_conllx.stdout == words.encode()
