"""Issue 22, readers and formats: binary data anywhere, labels an action cannot spell, the oracle | replay round
trip in both CoNLL formats, PTB trees without one root, and where a compressed input breaks off.

Every expectation is derived from the input bytes themselves (the line of the NUL, the file's own size, the
sample file's own bytes), not from the code under test.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLE_DATA, run_cli

BINARY = "binary data (a NUL byte), not a treebank"
EN = SAMPLE_DATA / "en_sample.conllu"
WSJ = SAMPLE_DATA / "wsj_sample.mrg"
ROUND_TRIP_SAMPLES = ("en_sample.conllu", "de_sample.conllu", "en_sample.conllx")
#: Systems that derive every tree of the bundled samples (non-projective ones included), so their round trip
#: must give back every byte.
DERIVE_ALL = (("attardi", "--degree", "2"), ("swap",))


# ---------------------------------------------------------------------------------------------------------------
# a NUL byte past the first 4 KiB
# ---------------------------------------------------------------------------------------------------------------
def _with_nul(data: bytes, where: int | None, separator: bytes) -> tuple[bytes, int]:
    """``data`` with a NUL inside a field: after the first ``separator`` from byte ``where``, or after the first
    byte of the last non-blank line (``where`` None); and the 1-based line of that NUL."""
    if where is None:
        at = data.rstrip().rfind(b"\n") + 2
    else:
        at = data.index(separator, where) + 1
    return data[:at] + b"\x00" + data[at:], data.count(b"\n", 0, at) + 1


def _repeated(path: Path, size: int) -> bytes:
    data = path.read_bytes()
    return data * (size // len(data) + 1)


def _oracle_output(source: Path, size: int, *args: str) -> bytes:
    """What ``oracle`` writes for the sample repeated past ``size`` bytes (the input of ``replay``)."""
    result = run_cli("oracle", "-", *args, stdin=_repeated(source, size))
    assert result.returncode == 0, result.stderr
    return result.stdout


DEPENDENCY_SYSTEM = ("--system", "attardi", "--degree", "2")
#: The command and its options (--on-error skip where it has it: binary data is never skipped), and its input.
COMMANDS = {
    "projectivize": (["projectivize", "--on-error", "skip"], "conllu"),
    "deprojectivize": (["deprojectivize", "--on-error", "skip"], "conllu"),
    "coverage": (["coverage", "--on-error", "skip"], "conllu"),
    "oracle": (["oracle", "--on-error", "skip"], "conllu"),
    "replay": (["replay", *DEPENDENCY_SYSTEM, "--on-error", "skip"], "actions"),
    "annotate": (["annotate", "--system", "arc-standard", "--on-error", "skip"], "conllu"),
    "stats": (["stats", "--on-error", "skip"], "conllu"),
    "filter": (["filter", "--on-error", "skip"], "conllu"),
    "view": (["view"], "conllu"),
    "diff": (["diff"], "conllu"),
    "oracle-ptb": (["oracle", "--system", "in-order", "--on-error", "skip"], "ptb"),
    "replay-ptb": (["replay", "--system", "in-order", "--on-error", "skip"], "inorder"),
    "annotate-ptb": (["annotate", "--system", "in-order", "--on-error", "skip"], "ptb"),
    "stats-ptb": (["stats", "--on-error", "skip"], "ptb"),
    "filter-ptb": (["filter", "--on-error", "skip"], "ptb"),
    "view-ptb": (["view"], "ptb"),
}
SUFFIX = {"conllu": ".conllu", "actions": ".conllu", "ptb": ".mrg", "inorder": ".oracle"}


def _input(kind: str, size: int) -> tuple[bytes, bytes]:
    """A clean input of ``kind`` longer than ``size`` bytes, and the byte that separates its fields."""
    if kind == "conllu":
        return _repeated(EN, size), b"\t"
    if kind == "actions":
        return _oracle_output(EN, size, *DEPENDENCY_SYSTEM), b"\t"
    if kind == "ptb":
        return _repeated(WSJ, size), b" "
    return _oracle_output(WSJ, size, "--system", "in-order"), b" "


@pytest.mark.parametrize("where", [5000, 70000, None], ids=["byte-5000", "byte-70000", "last-line"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_nul_byte_anywhere_is_refused_at_its_line_never_skipped(tmp_path, command, where):
    args, kind = COMMANDS[command]
    data, separator = _input(kind, 75000)
    assert b"\x00" not in data and len(data) > 70000
    bad, line = _with_nul(data, where, separator)
    path = tmp_path / f"input{SUFFIX[kind]}"
    path.write_bytes(bad)
    if command == "diff":  # the gold file clean, the other one binary
        (tmp_path / "gold.conllu").write_bytes(data)
        args = [*args, tmp_path / "gold.conllu"]
    output = tmp_path / f"out{SUFFIX[kind]}"
    extra = [] if command.startswith(("view", "diff", "stats", "coverage")) else ["-o", output]
    result = run_cli(*args, path, *extra)
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert f"{path}:{line}: {BINARY}" in err and "Traceback" not in err
    assert not output.exists()


def test_a_nul_byte_past_the_head_of_stdin_is_refused_at_its_line():
    bad, line = _with_nul(_repeated(EN, 75000), 70000, b"\t")
    result = run_cli("filter", "-", "--on-error", "skip", stdin=bad)
    assert result.returncode == 2
    assert f"<stdin>:{line}: {BINARY}" in result.stderr.decode()


# ---------------------------------------------------------------------------------------------------------------
# oracle | replay
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("labeled", [False, True], ids=["unlabelled", "labelled"])
@pytest.mark.parametrize("system", DERIVE_ALL, ids=lambda s: s[0])
@pytest.mark.parametrize("sample", ROUND_TRIP_SAMPLES)
def test_oracle_then_replay_gives_every_sample_back_byte_for_byte(tmp_path, sample, system, labeled):
    original = (SAMPLE_DATA / sample).read_bytes()
    options = ["--system", *system]
    actions = run_cli("oracle", SAMPLE_DATA / sample, *options, *(["--labeled"] if labeled else []))
    assert actions.returncode == 0 and actions.stdout != original
    unnamed = tmp_path / "actions"  # no format in the name: the content tells it
    unnamed.write_bytes(actions.stdout)
    for source, stdin in ((unnamed, None), ("-", actions.stdout)):
        replayed = run_cli("replay", source, *options, stdin=stdin)
        assert (replayed.returncode, replayed.stdout) == (0, original), (source, replayed.stderr)


def test_oracle_piped_into_replay_gives_conllx_back():
    """The real pipe of the issue: two processes, stdin a pipe."""
    sample = SAMPLE_DATA / "en_sample.conllx"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "treetool"]
    oracle = subprocess.run([*command, "oracle", sample, "--system", "swap"], capture_output=True, env=env, check=True)
    replay = subprocess.run([*command, "replay", "-", "--system", "swap"], input=oracle.stdout, capture_output=True,
                            env=env)
    assert (replay.returncode, replay.stdout) == (0, sample.read_bytes()), replay.stderr


def test_a_conllx_sentence_keeps_one_format_line_through_a_second_oracle(tmp_path):
    once = run_cli("oracle", SAMPLE_DATA / "en_sample.conllx", "--system", "swap").stdout
    (tmp_path / "once.conllx").write_bytes(once)
    twice = run_cli("oracle", tmp_path / "once.conllx", "--system", "swap").stdout
    assert twice == once and once.count(b"# format = conllx\n") == 3


# ---------------------------------------------------------------------------------------------------------------
# labels an action cannot spell
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("label", ["n subj", ""], ids=["space", "empty"])
@pytest.mark.parametrize("suffix", [".conllu", ".conllx"])
def test_a_deprel_no_action_can_spell_is_refused_at_its_line(tmp_path, label, suffix):
    data = (SAMPLE_DATA / "en_sample.conllx").read_bytes()
    at = data.index(b"\tSBJ\t", 100)  # the second sentence's subject
    line = data.count(b"\n", 0, at) + 1
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(data[:at] + f"\t{label}\t".encode() + data[at + 5:])
    result = run_cli("oracle", path, "--system", "swap", "--labeled", "--from", "conllx")
    assert result.returncode == 2
    assert f"{path}:{line}: " in result.stderr.decode() and "DEPREL" in result.stderr.decode()
    skipped = run_cli("oracle", path, "--system", "swap", "--labeled", "--from", "conllx", "--on-error", "skip")
    assert skipped.returncode == 0 and skipped.stdout.count(b"# transitions = ") == 2


# ---------------------------------------------------------------------------------------------------------------
# PTB trees without one root
# ---------------------------------------------------------------------------------------------------------------
GOOD_TREE = b"( (S (NP (PRP It)) (VP (VBD ran))))\n"
#: One stray ")" after "sat" closes the S early: the unlabelled bracket then holds S and the full stop.
TWO_CHILDREN = b"( (S (NP (DT The) (NN cat)) (VP (VBD sat))) (. .))\n"
ONE_ROOT_COMMANDS = {
    "oracle-in-order": ["oracle", "--system", "in-order"],
    "oracle-top-down": ["oracle", "--system", "top-down"],
    "oracle-jsonl": ["oracle", "--system", "top-down", "--format", "jsonl"],
    "annotate-in-order": ["annotate", "--system", "in-order"],
    "annotate-top-down": ["annotate", "--system", "top-down"],
    "stats": ["stats", "--format", "json"],
}


@pytest.mark.parametrize("command", ONE_ROOT_COMMANDS)
def test_an_unlabelled_bracket_with_two_trees_is_an_error_at_its_line(tmp_path, command):
    path = tmp_path / "trees.mrg"
    path.write_bytes(GOOD_TREE + TWO_CHILDREN + GOOD_TREE)
    result = run_cli(*ONE_ROOT_COMMANDS[command], path)
    err = result.stderr.decode()
    assert result.returncode == 2 and f"{path}:2: the outer bracket, without a label, holds 2 constituents" in err
    assert "Traceback" not in err
    skipped = run_cli(*ONE_ROOT_COMMANDS[command], path, "--on-error", "skip")
    assert skipped.returncode == 0, skipped.stderr
    assert f"{path}:2:" in skipped.stderr.decode()  # named in the count of skipped trees
    without = tmp_path / "trees.ptb"  # the same lines, the bad tree blanked out
    without.write_bytes(GOOD_TREE + b"\n" + GOOD_TREE)
    expected = run_cli(*ONE_ROOT_COMMANDS[command], without).stdout.replace(str(without).encode(), str(path).encode())
    if command == "stats":
        got, want = json.loads(skipped.stdout)["total"], json.loads(expected)["total"]
        assert (got.pop("skipped"), want.pop("skipped")) == (1, 0)
        assert got == want
    else:
        if command.startswith(("oracle-jsonl", "annotate")):  # positions count the skipped tree: the last is 3rd
            assert b'"sent_id": "2"' in expected and b'"sent_id": "3"' not in expected
            expected = expected.replace(b'"sent_id": "2"', b'"sent_id": "3"')
        assert skipped.stdout == expected


def test_filter_and_view_keep_an_unlabelled_bracket_with_two_trees(tmp_path):
    path = tmp_path / "trees.mrg"
    path.write_bytes(GOOD_TREE + TWO_CHILDREN)
    kept = run_cli("filter", path)
    assert (kept.returncode, kept.stdout) == (0, GOOD_TREE + TWO_CHILDREN)
    drawn = run_cli("view", path)
    assert drawn.returncode == 0 and TWO_CHILDREN.strip() in drawn.stdout


def test_an_unlabelled_root_kept_by_no_clean_is_an_error_not_an_nt_action(tmp_path):
    path = tmp_path / "tree.mrg"
    path.write_bytes(GOOD_TREE)
    result = run_cli("oracle", "--system", "top-down", "--no-clean", path)
    assert result.returncode == 2 and f"{path}:1: the outer bracket has no label" in result.stderr.decode()


# ---------------------------------------------------------------------------------------------------------------
# truncated compressed input
# ---------------------------------------------------------------------------------------------------------------
COMPRESSORS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


@pytest.mark.parametrize("suffix", COMPRESSORS)
@pytest.mark.parametrize("kind", ["conllu", "ptb", "inorder"])
def test_a_truncated_compressed_input_names_the_byte_where_it_stops(tmp_path, suffix, kind):
    data, _ = _input(kind, 20000)
    cut = COMPRESSORS[suffix](data)
    cut = cut[:len(cut) // 2]
    path = tmp_path / f"input{SUFFIX[kind]}{suffix}"
    path.write_bytes(cut)
    command = ["replay", "--system", "in-order"] if kind == "inorder" else ["stats"]
    result = run_cli(*command, path)
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err
    assert f"{path}: truncated compressed data: the compressed stream ends at byte {len(cut)} " in err
