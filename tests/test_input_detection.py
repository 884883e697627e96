"""Input is recognised by content: compression on every input (stdin too), binary data refused.

Expected sentence counts come from counting blank-line-separated blocks of the
uncompressed sample, not from treetool.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, SAMPLE_DATA, run_cli

EN = SAMPLE_DATA / "en_sample.conllu"
PTB = SAMPLE_DATA / "wsj_sample.mrg"
COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "treetool", *map(str, args)], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=120)


def expected_counts() -> tuple[int, int]:
    blocks = [b for b in EN.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    words = sum(1 for b in blocks for line in b.splitlines() if line.split("\t")[0].isdigit())
    return len(blocks), words


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_compressed_stdin_is_detected(kind):
    data = COMPRESSORS[kind](EN.read_bytes())
    result = run("stats", "-", "--format", "json", stdin=data)
    assert result.returncode == 0, result.stderr
    total = json.loads(result.stdout)["total"]
    assert (total["sentences"], total["words"]) == expected_counts()


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_compressed_stdin_copies_byte_for_byte(kind):
    result = run("filter", "-", stdin=COMPRESSORS[kind](EN.read_bytes()))
    assert result.returncode == 0, result.stderr
    assert result.stdout == EN.read_bytes()


def test_compressed_file_without_suffix_is_detected(tmp_path):
    path = tmp_path / "data.conllu"  # gzip content behind a plain name
    path.write_bytes(gzip.compress(EN.read_bytes()))
    result = run("filter", path)
    assert result.returncode == 0 and result.stdout == EN.read_bytes()


def assert_located_error(result: subprocess.CompletedProcess, path, words: str) -> None:
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith(f"{path}:") and words in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("payload", [b"\x00" * 3000, b"1\tx\x00y\n", bytes(range(256)) * 8],
                         ids=["zeros", "nul-in-line", "all-bytes"])
@pytest.mark.parametrize("command", ["stats", "filter", "projectivize"])
def test_binary_input_is_an_error(tmp_path, payload, command):
    path = tmp_path / "binary.conllu"
    path.write_bytes(payload)
    assert_located_error(run(command, path), path, "binary")


def test_binary_stdin_is_an_error():
    result = run("stats", "-", stdin=b"\x00\x01\x02" * 100)
    assert result.returncode == 2 and b"<stdin>:1: binary" in result.stderr


def test_zip_archive_is_named(tmp_path):
    path = tmp_path / "train.conllu"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("train.conllu", EN.read_text())
    assert_located_error(run("stats", path), path, "zip archive")


def test_ptb_read_as_conllu_and_conllu_read_as_ptb_are_errors():
    assert_located_error(run("stats", PTB, "--from", "conllu"), PTB, "columns")
    assert_located_error(run("filter", EN, "--from", "ptb"), EN, "")


@pytest.mark.parametrize("report_format", ["json", "tsv"])
def test_empty_input_measures_are_not_applicable(tmp_path, report_format):
    path = tmp_path / "empty.conllu"
    path.write_bytes(b"")
    result = run("projectivize", path, "--report", "--format", report_format)
    assert result.returncode == 0
    if report_format == "json":
        total = json.loads(result.stderr)["total"]
        assert total["sentences"] == 0
        for key in ("accuracy", "optimal_accuracy", "pseudo_head_accuracy", "ms_per_tree"):
            assert total[key] is None, key
    else:
        header, row = result.stderr.decode().splitlines()[:2]
        cells = dict(zip(header.split("\t"), row.split("\t")))
        assert cells["accuracy"] == "n/a" and cells["optimal_accuracy"] == "n/a"


def test_empty_input_stats_are_not_applicable(tmp_path):
    path = tmp_path / "empty.conllu"
    path.write_bytes(b"")
    total = json.loads(run("stats", path, "--format", "json").stdout)["total"]
    assert total["mean_length"] is None and total["non_projective_sentences_pct"] is None
    assert total["non_projective_arcs_pct"] is None and total["max_gap_degree"] is None


@pytest.mark.parametrize("data", [gzip.compress(EN.read_bytes())[:100], b"\x1f\x8bnot really gzip", b"BZhnot bzip2"],
                         ids=["truncated-gzip", "corrupt-gzip", "corrupt-bzip2"])
def test_corrupt_compressed_input_is_one_line(tmp_path, data):
    path = tmp_path / "train.conllu"
    path.write_bytes(data)
    result = run("filter", path)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith(f"{path}: ") and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_conllx_on_stdin_is_told_by_its_roots_or_phead_column():
    """A CoNLL-X stream (no comments) whose sentence has several roots or a numeric PHEAD reads as CoNLL-X."""
    from treetool.formats.files import format_from_text

    word = "{id}\tw\tw\tX\tX\t_\t{head}\tdep\t{phead}\t_"
    two_roots = "\n".join([word.format(id=1, head=0, phead="_"), word.format(id=2, head=0, phead="_")]) + "\n\n"
    phead = "\n".join([word.format(id=1, head=2, phead="2"), word.format(id=2, head=0, phead="_")]) + "\n\n"
    one_root = "\n".join([word.format(id=1, head=2, phead="_"), word.format(id=2, head=0, phead="_")]) + "\n\n"
    deps = "\n".join([word.format(id=1, head=2, phead="2:dep"), word.format(id=2, head=0, phead="0:root")]) + "\n\n"
    assert format_from_text(two_roots) == format_from_text(phead) == "conllx"
    assert format_from_text(one_root) == format_from_text(deps) == "conllu"
    assert format_from_text("# sent_id = 1\n" + two_roots) == "conllu"
    data = (SAMPLE_DATA / "en_sample.conllx").read_bytes()
    result = run_cli("filter", "-", stdin=data)
    assert result.returncode == 0 and result.stdout == data


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("sample", [EN, PTB], ids=["conllu", "ptb"])
def test_utf8_bom_is_not_content_on_stdin(sample):
    """A UTF-8 byte order mark (as some editors write) does not hide the format when it must be told from the
    content: on stdin the file reads as it does under its own name, and filter copies it back, BOM included."""
    data = BOM + sample.read_bytes()
    result = run("filter", "-", stdin=data)
    assert result.returncode == 0, result.stderr
    assert result.stdout == data


def test_utf8_bom_before_a_recorded_format(tmp_path):
    """``# format = conllx`` after a BOM still says the oracle output is CoNLL-X."""
    data = BOM + b"# format = conllx\n1\ta\ta\tX\tX\t_\t0\tROOT\t_\t_\n2\tb\tb\tX\tX\t_\t0\tROOT\t_\t_\n\n"
    result = run("stats", "-", "--format", "json", stdin=data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["total"]["multi_root_sentences"] == 1
