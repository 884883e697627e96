"""Options that cannot act are refused; writers never produce a file that does not read back.

Every case here was accepted and silently ignored (or wrote an unreadable
file) before the command layer's rule: each now gives exit 2 and one line.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLE_DATA, run_cli
from treetool.commands.app import app

EN = SAMPLE_DATA / "en_sample.conllu"
PTB = SAMPLE_DATA / "wsj_sample.mrg"
MULTI_ROOT = "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
ONE_ROOT = "1\tc\t_\t_\t_\t_\t0\troot\t_\t_\n2\td\t_\t_\t_\t_\t1\tdep\t_\t_\n\n"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "treetool", *map(str, args)], capture_output=True,
                          cwd=ROOT, timeout=120, text=True)


REFUSED = [
    (["filter", EN, "--min-words", "10", "--max-words", "5"], "--max-words"),
    (["filter", EN, "--drop-traces"], "--drop-traces"),
    (["filter", EN, "--strip-functions"], "--strip-functions"),
    (["filter", EN, "--remove-wrapper"], "--remove-wrapper"),
    (["filter", PTB, "--non-projective"], "--non-projective"),
    (["view", PTB, "--max-lanes", "5"], "--max-lanes"),
    (["projectivize", EN, "--scheme", "head"], "--scheme"),
    (["projectivize", EN, "--covered-roots", "left"], "--covered-roots"),
    (["projectivize", EN, "--lift-order", "deepest"], "--lift-order"),
    (["projectivize", EN, "--method", "pseudo", "--count"], "--count"),
    (["projectivize", EN, "--method", "pseudo", "--root", "any"], "--root"),
    (["projectivize", EN, "--method", "pseudo", "--ties", "lift"], "--ties"),
    (["stats", EN, "--rejects", "r.conllu"], "--rejects"),
    (["projectivize", EN, "--method", "pseudo", "--on-timeout", "skip"], "--on-timeout"),
    (["projectivize", EN, "--method", "pseudo", "--max-seconds", "1", "--on-timeout", "lift"], "--on-timeout"),
]


@pytest.mark.parametrize("args,option", REFUSED, ids=[" ".join(map(str, a[2:])) for a, _ in REFUSED])
def test_inapplicable_option_is_refused(args, option):
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"treetool: error: {option} "), result.stderr
    assert result.stdout == ""


def test_ids_matching_nothing_warn_with_the_count(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("en-2\nno-such-id\nnor-this\n")
    result = run("filter", EN, "--ids", ids)
    assert result.returncode == 0
    assert re.findall(r"^# sent_id = (.*)$", result.stdout, re.M) == ["en-2"]
    assert f"2 of 3 ids in {ids} matched no sentence" in result.stderr


def test_format_implies_the_report():
    result = run("projectivize", EN, "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stderr)["total"]["sentences"] == EN.read_text().count("# sent_id")


def test_report_and_report_file_both_act(tmp_path):
    path = tmp_path / "report.json"
    result = run("projectivize", EN, "--report", "--format", "json", "--report-file", path)
    assert result.returncode == 0
    assert json.loads(result.stderr) == json.loads(path.read_text())


def test_multi_root_tree_is_not_written_as_conllu(tmp_path):
    source = tmp_path / "in.conllx"
    source.write_text(MULTI_ROOT + ONE_ROOT)
    target = tmp_path / "out.conllu"
    result = run("filter", source, "-o", target)
    assert result.returncode == 2 and not target.exists()
    assert result.stderr.startswith(f"{source}:1: ") and "root" in result.stderr


# CoNLL-U sentences whose new tree has two roots: transitions attaching both words to the root (replay), a
# covered root MaltParser marks '|null' put back under the root (deprojectivize).
TWO_ROOTS_MADE = {  # the sentence, then one that stays single-rooted
    "replay": ("# transitions = SH RA SH RA\n" + ONE_ROOT + "# transitions = SH SH RA RA\n" + ONE_ROOT,
               ["--system", "arc-standard"]),
    "deprojectivize": (ONE_ROOT.replace("\t1\tdep\t", "\t1\tdep|null\t") + ONE_ROOT, ["--scheme", "head"]),
}


@pytest.mark.parametrize("command", sorted(TWO_ROOTS_MADE))
def test_a_tree_made_multi_root_is_not_written_as_conllu(tmp_path, command):
    """CoNLL-U allows one root: a tree a command makes with two is refused at its line (skipped with
    --on-error skip), never written where no CoNLL-U reader (treetool's included) reads it back."""
    text, args = TWO_ROOTS_MADE[command]
    source = tmp_path / "in.conllu"
    source.write_text(text)
    result = run(command, source, *args)
    assert result.returncode == 2 and result.stderr.startswith(f"{source}:1: ") and "root" in result.stderr
    skipped = run(command, source, *args, "--on-error", "skip")
    assert skipped.returncode == 0 and skipped.stdout.count("\n1\t") + skipped.stdout.startswith("1\t") == 1
    as_conllx = run(command, source, *args, "--to", "conllx")
    assert as_conllx.returncode == 0 and as_conllx.stdout.split("\n\n")[0].count("\t0\t") == 2


def test_multi_root_tree_is_skipped_and_counted_with_on_error_skip(tmp_path):
    source = tmp_path / "in.conllx"
    source.write_text(MULTI_ROOT + ONE_ROOT)
    rejects = tmp_path / "rejects.conllx"
    result = run("filter", source, "--to", "conllu", "--on-error", "skip", "--rejects", rejects)
    assert result.returncode == 0
    assert result.stdout.count("\troot\t") == 1 and "\tc\t" in result.stdout
    assert "skipped 1 bad sentence" in result.stderr
    assert rejects.read_text() == MULTI_ROOT
    # ... and what was written reads back as CoNLL-U
    check = subprocess.run([sys.executable, "-m", "treetool", "stats", "-", "--from", "conllu"],
                           input=result.stdout, capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("command", ["projectivize", "deprojectivize", "stats", "filter"])
def test_help_shows_file_metavar(command):
    from typer.testing import CliRunner

    text = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
    assert f"Usage: treetool {command} [OPTIONS] FILE..." in text
    assert "<list" not in text and "{FILE}" not in text
    assert re.search(r"^\s+FILE\.\.\.\s+Treebank files", text, re.M)


@pytest.mark.parametrize("command", ["projectivize", "coverage", "oracle", "annotate", "stats"])
def test_help_offers_lift_only_where_it_is_taken(command):
    """``--on-timeout lift`` is projectivize's alone; the others refuse it, so their help shows skip and fail."""
    from typer.testing import CliRunner

    text = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
    shown = re.findall(r"--on-timeout (<[a-z|]+>)", text)
    if command == "stats":
        assert shown == []
    else:
        assert shown == ["<lift|skip|fail>" if command == "projectivize" else "<skip|fail>"]
        if command in ("oracle", "annotate"):  # coverage takes --max-seconds for a user's system only
            refused = run(command, str(SAMPLE_DATA / "en_sample.conllu"), "--system", "swap", "--max-seconds", "5",
                          "--on-timeout", "lift")
            assert refused.returncode == 2 and "lift applies to projectivize" in refused.stderr


def test_help_lists_every_command_with_its_summary():
    """The commands are imported lazily (start-up); ``treetool --help`` still lists each one with its summary."""
    import importlib

    from treetool.commands.app import COMMANDS

    text = run("--help").stdout
    for name, module in COMMANDS.items():
        doc = getattr(importlib.import_module(f"treetool.commands.{module}"), f"{name}_command").__doc__
        first_words = " ".join(doc.split()[:3])
        assert re.search(rf"^  {name} +{re.escape(first_words)}", text, re.M), name


def test_coverage_refuses_constituency_systems_and_points_to_stats(tmp_path):
    path = tmp_path / "x.mrg"
    path.write_text("(S (NN a) (NN b))\n")
    result = run_cli("coverage", path, "--system", "in-order")
    assert result.returncode == 2 and "treetool stats" in result.stderr.decode()
