"""``--align id|position`` of ``diff`` and ``annotate --predicted``: parser output without ``# sent_id`` comments.

A parser's output is made here from the gold sample: comments dropped (as
many parsers do) and the second sentence's words all attached to its root
word (a different, valid tree).  Paired by position it must give exactly
what the same output with the gold's ids gives paired by id.  Lines are
located from the text itself (a sentence's line is the first of its block).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, run_cli

GOLD = SAMPLE_DATA / "en_sample.conllu"
ANNOTATE = ("annotate", GOLD, "--system", "arc-eager", "--policy", "predicted", "--predicted")


def blocks(text: str) -> list[str]:
    return [b for b in text.split("\n\n") if b.strip()]


def block_lines(text: str) -> list[int]:
    """The 1-based line where each sentence's block starts."""
    starts, line = [], 1
    for block in text.split("\n\n"):
        if block.strip():
            starts.append(line + len(block) - len(block.lstrip("\n")))
        line += block.count("\n") + 2
    return starts


def flattened(block: str) -> str:
    """The block with every word but the root attached to the root word."""
    rows = [line.split("\t") for line in block.splitlines()]
    root = next(r[0] for r in rows if len(r) == 10 and r[6] == "0")
    for r in rows:
        if len(r) == 10 and r[0].isdigit() and r[6] != "0":
            r[6] = root
    return "\n".join("\t".join(r) for r in rows)


def parser_output(keep_ids: bool, sentences: list[str] | None = None) -> str:
    """The gold sample as a parser might give it back (see the module's docstring)."""
    out = []
    for i, block in enumerate(sentences or blocks(GOLD.read_text(encoding="utf-8"))):
        block = flattened(block) if i == 1 else block
        out.append("\n".join(line for line in block.splitlines() if keep_ids or not line.startswith("#")))
    return "\n\n".join(out) + "\n\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_error_line(result) -> str:
    err = result.stderr.decode()
    assert result.returncode == 2 and err.count("\n") == 1, err
    return err.rstrip("\n")


def test_diff_by_position_equals_diff_by_id_of_the_same_trees(tmp_path):
    with_ids = write(tmp_path, "ids.conllu", parser_output(keep_ids=True))
    text = parser_output(keep_ids=False)
    without = write(tmp_path, "parsed.conllu", text)
    by_id = run_cli("diff", GOLD, with_ids, "--format", "json")
    by_position = run_cli("diff", GOLD, without, "--format", "json", "--align", "position")
    assert by_id.returncode == by_position.returncode == 1, by_position.stderr
    expected, got = json.loads(by_id.stdout), json.loads(by_position.stdout)
    assert [s.pop("other_line") for s in got["sentences"]] == [block_lines(text)[1]]  # the flattened sentence
    for s in expected["sentences"]:
        del s["other_line"]
    assert got == expected
    tsv = [run_cli("diff", GOLD, other, "--format", "tsv", *extra).stdout
           for other, extra in ((with_ids, ()), (without, ("--align", "position")))]
    assert tsv[0] == tsv[1] and tsv[0].count(b"\n") > 1


def test_annotate_by_position_follows_the_same_trees_as_by_id(tmp_path):
    with_ids = write(tmp_path, "ids.conllu", parser_output(keep_ids=True))
    without = write(tmp_path, "parsed.conllu", parser_output(keep_ids=False))
    by_id = run_cli(*ANNOTATE, with_ids)
    by_position = run_cli(*ANNOTATE, without, "--align", "position")
    assert by_id.returncode == by_position.returncode == 0, by_position.stderr
    assert by_position.stdout == by_id.stdout and by_id.stdout


@pytest.mark.parametrize("command", ["diff", "annotate"])
def test_by_id_output_without_ids_is_an_error_that_suggests_position(tmp_path, command):
    without = write(tmp_path, "parsed.conllu", parser_output(keep_ids=False))
    result = run_cli("diff", GOLD, without) if command == "diff" else run_cli(*ANNOTATE, without)
    line = one_error_line(result)
    assert line.startswith(f"{without}:1: ") and "--align position" in line


@pytest.mark.parametrize("command", ["diff", "annotate"])
def test_by_position_different_words_are_an_error_at_the_predicted_line(tmp_path, command):
    gold_blocks = blocks(GOLD.read_text(encoding="utf-8"))
    changed = [gold_blocks[0], gold_blocks[1].replace("\thearing\t", "\tmeeting\t"), gold_blocks[2]]
    text = parser_output(keep_ids=False, sentences=changed)
    parsed = write(tmp_path, "parsed.conllu", text)
    args = ("diff", GOLD, parsed) if command == "diff" else (*ANNOTATE, parsed)
    line = one_error_line(run_cli(*args, "--align", "position"))
    gold_line = block_lines(GOLD.read_text(encoding="utf-8"))[1]
    assert line == f"{parsed}:{block_lines(text)[1]}: sentence 2 has different words from {GOLD}:{gold_line}"


@pytest.mark.parametrize("command", ["diff", "annotate"])
@pytest.mark.parametrize("count", [2, 4])
def test_by_position_a_different_number_of_sentences_is_an_error(tmp_path, command, count):
    gold_blocks = blocks(GOLD.read_text(encoding="utf-8"))
    sentences = (gold_blocks + gold_blocks)[:count]
    parsed = write(tmp_path, "parsed.conllu", parser_output(keep_ids=False, sentences=sentences))
    args = ("diff", GOLD, parsed) if command == "diff" else (*ANNOTATE, parsed)
    line = one_error_line(run_cli(*args, "--align", "position"))
    extra = count > len(gold_blocks)
    assert line.startswith(f"{parsed if extra else GOLD}:")
    if command == "diff":
        assert f"sentence {min(count, len(gold_blocks)) + 1} has no counterpart" in line
    else:
        assert ("is not in the gold files" if extra else "has no predicted tree") in line


def test_align_is_refused_where_it_cannot_act(tmp_path):
    result = run_cli("annotate", GOLD, "--system", "arc-eager", "--align", "position")
    assert one_error_line(result) == "treetool: error: --align needs --policy predicted"
    ptb = SAMPLE_DATA / "wsj_sample.mrg"
    result = run_cli("annotate", ptb, "--system", "top-down", "--policy", "predicted", "--predicted", ptb,
                     "--align", "position")
    assert one_error_line(result).startswith("treetool: error: --align is for dependency systems")
