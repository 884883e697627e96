"""The command line: conventions shared by every command, `stats` and `filter`."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from treetool.commands.app import app
from conftest import ROOT, SAMPLE_DATA, results_non_projective_shares, run_cli, shared_path, ud_train_file
from treetool import __version__

runner = CliRunner()
EN = SAMPLE_DATA / "en_sample.conllu"
DE = SAMPLE_DATA / "de_sample.conllu"
CONLLX = SAMPLE_DATA / "en_sample.conllx"
PTB = SAMPLE_DATA / "wsj_sample.mrg"

GOOD = "1\tA\ta\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
BAD_HEAD = "# sent_id = bad\n1\tA\ta\tDET\tDT\t_\tx\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def run_module(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "treetool", *map(str, args)],
        input=stdin, capture_output=True, cwd=ROOT, timeout=120,
    )


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"treetool {__version__}"


@pytest.mark.parametrize("command", ["stats", "filter", "projectivize", "deprojectivize", "view", "diff"])
def test_every_command_has_help_with_an_example(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout
    assert f"treetool {command} " in result.stdout


def test_python_dash_m_runs_the_cli():
    proc = run_module("--version")
    assert proc.returncode == 0
    assert proc.stdout.decode().strip() == f"treetool {__version__}"


# ------------------------------------------------------------------ filter
THREADS_AT_EXIT = """
import atexit, os, sys
from treetool.commands.app import main
atexit.register(lambda: print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS")))
sys.argv = ["treetool", "projectivize", "--count", sys.argv[1], "-o", os.devnull]
main()
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc (Linux)")
@pytest.mark.parametrize("given", [None, "3"])
def test_the_cli_runs_numpy_without_blas_threads_unless_asked(given):
    """No command does linear algebra: OpenBLAS's threads would only spin (the user's own setting stands)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", THREADS_AT_EXIT, str(SAMPLE_DATA / "en_sample.conllu")],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    threads, setting = done.stdout.split()
    if given is None:
        assert (threads, setting) == ("1", "1")  # the main thread alone
    else:
        assert setting == given


@pytest.mark.parametrize("path", [EN, DE, CONLLX])
def test_filter_without_options_is_a_lossless_copy(path, tmp_path):
    out = tmp_path / ("copy" + path.suffix)
    result = invoke("filter", path, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == path.read_bytes()


def test_filter_to_stdout_is_lossless():
    result = invoke("filter", DE)
    assert result.exit_code == 0
    assert result.stdout_bytes == DE.read_bytes()


def test_filter_decompresses_and_compresses(tmp_path):
    packed = tmp_path / "in.conllu.gz"
    packed.write_bytes(gzip.compress(DE.read_bytes()))
    plain = tmp_path / "out.conllu"
    assert invoke("filter", packed, "-o", plain).exit_code == 0
    assert plain.read_bytes() == DE.read_bytes()
    repacked = tmp_path / "again.conllu.gz"
    assert invoke("filter", plain, "-o", repacked).exit_code == 0
    assert gzip.decompress(repacked.read_bytes()) == DE.read_bytes()


def test_filter_stdin_to_stdout():
    proc = run_module("filter", "-", stdin=EN.read_bytes())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EN.read_bytes()


def test_filter_selects_by_projectivity_and_length():
    nonproj = invoke("filter", EN, "--non-projective")
    assert "# sent_id = en-2" in nonproj.stdout and "en-1" not in nonproj.stdout and "en-3" not in nonproj.stdout
    proj = invoke("filter", EN, "--projective")
    assert "en-1" in proj.stdout and "en-3" in proj.stdout and "en-2" not in proj.stdout
    short = invoke("filter", EN, "--max-words", "8")
    assert "en-1" in short.stdout and "en-2" not in short.stdout
    long = invoke("filter", EN, "--min-words", "10")
    assert "en-3" in long.stdout and "en-1" not in long.stdout
    # The selected sentences are copied byte for byte.
    assert EN.read_text().split("\n\n")[1] + "\n\n" == nonproj.stdout


def test_filter_by_ids(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("en-3\n\nen-1\n")
    result = invoke("filter", EN, "--ids", ids)
    assert result.exit_code == 0
    assert "en-1" in result.stdout and "en-3" in result.stdout and "en-2" not in result.stdout


def test_filter_converts_conllu_to_conllx_with_a_warning(tmp_path):
    out = tmp_path / "de.conllx"
    result = invoke("filter", DE, "-o", out)
    assert result.exit_code == 0
    assert "2 multiword tokens dropped" in result.stderr
    assert "7 comment lines dropped" in result.stderr
    one = invoke("filter", EN, "-o", tmp_path / "en.conllx")  # one empty node: the singular
    assert "warning: 1 empty node dropped: conllx cannot hold it\n" in one.stderr
    text = out.read_text()
    assert "#" not in text and "6-7" not in text
    lines = [line.split("\t") for line in text.split("\n") if line]
    assert all(len(cols) == 10 and cols[8] == cols[9] == "_" for cols in lines)
    assert [cols[6] for cols in lines[:14]] == ["2", "9", "9", "9", "9", "8", "8", "9", "0", "13", "13", "13", "2", "9"]
    # --to does the same on stdout
    assert invoke("filter", DE, "--to", "conllx").stdout == text


def test_filter_cleans_ptb(tmp_path):
    result = invoke("filter", PTB, "--drop-traces", "--strip-functions", "--remove-wrapper")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert lines[2] == "(S (NP (NNP Ms.) (NNP Lee)) (VP (VBD declined) (S (VP (TO to) (VP (VB comment))))) (. .))"
    assert "-NONE-" not in result.stdout and "-SBJ" not in result.stdout


# --------------------------------------------------------------- bad input
def test_bad_input_prints_file_line_message_and_exits_2(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD + BAD_HEAD)
    proc = run_module("filter", bad)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith(f"{bad}:5: HEAD must be a non-negative integer, found 'x'")
    assert "Traceback" not in err
    # What came before the bad sentence was written.
    assert proc.stdout.decode() == GOOD


def test_failed_run_leaves_no_output_file(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD + BAD_HEAD)
    out = tmp_path / "out.conllu"
    result = invoke("filter", bad, "-o", out)
    assert result.exit_code == 2
    assert not out.exists()
    assert os.listdir(tmp_path) == ["bad.conllu"]


def test_on_error_skip_counts_and_keeps_rejects(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD + BAD_HEAD + GOOD + BAD_HEAD)
    rejects = tmp_path / "rejects.conllu"
    result = invoke("filter", bad, "--on-error", "skip", "--rejects", rejects)
    assert result.exit_code == 0
    assert result.stdout == GOOD + GOOD
    assert "skipped 2 bad sentences" in result.stderr
    assert f"{bad}:5:" in result.stderr
    assert rejects.read_text() == BAD_HEAD + BAD_HEAD


def test_rejects_needs_skip(tmp_path):
    result = invoke("filter", EN, "--rejects", tmp_path / "r.conllu")
    assert result.exit_code == 2
    assert "--rejects needs --on-error skip" in result.stderr


def test_missing_file_is_a_clean_error(tmp_path):
    proc = run_module("stats", tmp_path / "nope.conllu")
    assert proc.returncode == 2
    assert b"nope.conllu" in proc.stderr and b"Traceback" not in proc.stderr


def test_closed_pipe_ends_quietly():
    big = (GOOD * 20000).encode()
    proc = subprocess.run(
        f"{sys.executable} -m treetool filter - | head -n 1",
        shell=True, input=big, capture_output=True, cwd=ROOT, timeout=120,
        executable="/bin/bash", env={**os.environ, "PYTHONUNBUFFERED": "0"},
    )
    assert proc.stdout.decode() == GOOD.split("\n")[0] + "\n"
    assert proc.stderr == b""
    piped = subprocess.run(
        f"set -o pipefail; {sys.executable} -m treetool filter - | head -n 1 > /dev/null",
        shell=True, input=big, capture_output=True, cwd=ROOT, timeout=120, executable="/bin/bash",
    )
    assert piped.returncode == 0, piped.stderr


# ------------------------------------------------------------------- stats
def test_stats_json_on_sample_data():
    result = invoke("stats", EN, DE, CONLLX, "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [f["file"] for f in doc["files"]] == [str(EN), str(DE), str(CONLLX)]
    en, de, conllx = doc["files"]
    for entry in (*doc["files"], doc["total"]):
        for key in ("file", "sentences", "words", "non_projective_sentences", "non_projective_arcs",
                    "multi_root_sentences", "max_gap_degree", "ill_nested"):
            assert key in entry
    assert (en["sentences"], en["words"], en["non_projective_sentences"], en["non_projective_arcs"]) == (3, 27, 1, 1)
    assert (de["sentences"], de["words"], de["non_projective_sentences"]) == (2, 20, 1)
    assert (conllx["sentences"], conllx["multi_root_sentences"], conllx["non_projective_sentences"]) == (3, 1, 2)
    total = doc["total"]
    assert total["sentences"] == 8 and total["words"] == 66 and total["max_length"] == 14
    assert total["gap_degree"] == {"0": 4, "1": 4}


def test_stats_by_length_and_other_formats():
    result = invoke("stats", EN, "--by-length", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["files"][0]["by_length"] == {
        "1-10": {"sentences": 3, "non_projective": 1, "non_projective_pct": 33.33},
    }
    tsv = invoke("stats", EN, DE, "--format", "tsv").stdout.splitlines()
    header = tsv[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in tsv[1:]]
    assert [r["file"] for r in rows] == [str(EN), str(DE), "total"]
    assert rows[2]["sentences"] == "5"
    md = invoke("stats", EN, "--format", "markdown").stdout.splitlines()
    assert md[0].startswith("| file | sentences | words |")
    assert md[2].startswith(f"| {EN} | 3 | 27 |")


def test_stats_table_never_reads_corpus_text_as_markup(tmp_path):
    odd = tmp_path / "[bold]x[red].conllu"
    odd.write_bytes(EN.read_bytes())
    result = invoke("stats", odd)
    assert result.exit_code == 0
    assert "[bold]x[red].conllu" in result.stdout


def test_stats_counts_what_it_skipped(tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text(GOOD + BAD_HEAD)
    result = invoke("stats", bad, "--on-error", "skip", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["files"][0]["sentences"] == 1 and doc["files"][0]["skipped"] == 1
    assert "skipped 1 bad sentence" in result.stderr


@pytest.mark.parametrize("treebank", sorted(results_non_projective_shares()))
def test_stats_reproduces_the_published_non_projectivity(treebank):
    """Nederhof 2019, Table 7 (share of non-projective trees in UD 2.2 train): our figure
    exactly as benchmarks/RESULTS.md writes it, and rounded as in the paper."""
    ours, paper = results_non_projective_shares()[treebank]
    doc = json.loads(invoke("stats", ud_train_file(treebank), "--format", "json").stdout)
    share = doc["total"]["non_projective_sentences_pct"]
    assert f"{share:.2f}" == ours
    assert round(share) == paper


def test_filter_round_trips_real_treebanks(tmp_path):
    data = shared_path("data", "ud-2.2")
    for path in sorted(data.glob("*/*.conllu"))[:6]:
        out = tmp_path / path.name
        assert invoke("filter", path, "-o", out).exit_code == 0
        assert out.read_bytes() == path.read_bytes(), path


def test_filter_cleans_the_wsj_sample_like_rnng_and_in_order(tmp_path):
    """With all three PTB options, the WSJ sample matches the reference cleaning byte for byte."""
    files = sorted(shared_path("data", "ptb-sample").glob("*.mrg"))
    reference = shared_path("reference", "constituency", "ptb-sample.clean.txt")
    out = tmp_path / "clean.ptb"
    result = invoke("filter", *files, "--drop-traces", "--strip-functions", "--remove-wrapper", "-o", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == reference.read_bytes()


def test_invalid_utf8_in_ptb_is_a_located_error(tmp_path):
    bad = tmp_path / "bad.mrg"
    bad.write_bytes(b"( (S (NN fine)) )\n( (S (NN caf\xe9)) )\n")
    proc = run_module("filter", bad)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == f"{bad}:2: invalid UTF-8"
    assert proc.stdout == b"( (S (NN fine)) )\n"  # the tree before, as it is in the input


@pytest.mark.parametrize("command", ["projectivize", "deprojectivize", "replay"])
def test_every_conversion_to_conllx_warns_what_it_drops(tmp_path, command):
    """projectivize, deprojectivize and replay convert with --to / the -o name as filter does, and say as filter
    does what CoNLL-X cannot hold (counted here from DE's lines, not by treetool)."""
    lines = DE.read_text(encoding="utf-8").splitlines()
    comments = sum(line.startswith("#") for line in lines)
    multiword = sum("-" in line.split("\t")[0] for line in lines if line and not line.startswith("#"))
    source = DE
    if command == "replay":  # its input: the oracle's output, whose '# transitions' lines replay removes
        source = tmp_path / "de.oracle.conllu"
        assert invoke("oracle", DE, "--system", "swap", "-o", source).exit_code == 0
    args = ["--system", "swap"] if command == "replay" else []
    result = invoke(command, source, *args, "-o", tmp_path / "out.conllx")
    assert result.exit_code == 0, result.output
    assert f"warning: {comments} comment lines dropped: conllx cannot hold them\n" in result.stderr
    assert f"warning: {multiword} multiword tokens dropped: conllx cannot hold them\n" in result.stderr


def test_stats_names_stdin_as_every_message_does():
    """Every message names standard input ``<stdin>``; the report did so as ``-``."""
    data = EN.read_bytes()
    doc = json.loads(run_cli("stats", "-", "--format", "json", stdin=data).stdout)
    assert [row["file"] for row in doc["files"]] == ["<stdin>"]
    tsv = run_cli("stats", "-", EN, "--format", "tsv", stdin=data).stdout.decode().splitlines()
    assert [row.split("\t")[0] for row in tsv[1:]] == ["<stdin>", str(EN), "total"]
    table = run_cli("stats", "-", stdin=data).stdout.decode()
    assert "<stdin>" in table and " - " not in table
