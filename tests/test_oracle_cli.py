"""`treetool oracle`, `replay` and `coverage` end to end.

Expectations are derived independently of the oracles: the input bytes
themselves (oracle | replay), a brute-force crossing-arcs test of
projectivity written here, and the generic exhaustive search for degrees.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from itertools import combinations

import pytest


from conftest import ROOT, SAMPLE_DATA, shared_path, run_cli as run

EN = SAMPLE_DATA / "en_sample.conllu"
DE = SAMPLE_DATA / "de_sample.conllu"
CONLLX = SAMPLE_DATA / "en_sample.conllx"
SYSTEM_ARGS = {
    "arc-standard": [], "arc-hybrid": [], "arc-eager": [], "nm-arc-eager": ["--variant", "LD"],
    "attardi-2": ["--degree", "2"], "attardi-3": ["--degree", "3"], "swap": [], "swap-lazy": ["--order", "lazy"],
}


def system_args(key: str) -> list[str]:
    name = key.split("-")[0] if key.startswith(("attardi", "swap")) else key
    return ["--system", name, *SYSTEM_ARGS[key]]




def blocks(data: bytes) -> list[bytes]:
    """Sentences as byte blocks, each with its terminating blank line."""
    parts = data.split(b"\n\n")
    return [p + b"\n\n" for p in parts if p.strip()]


def heads_of(block: bytes) -> list[int]:
    heads = [-1]
    for line in block.decode().splitlines():
        cols = line.split("\t")
        if len(cols) >= 7 and cols[0].isdigit():
            heads.append(int(cols[6]))
    return heads


def crossing(heads: list[int]) -> bool:
    """Brute force: two arcs cross, or an arc covers the root (root at position 0)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads) if d > 0]
    return any(a < c < b < e or c < a < e < b for (a, b), (c, e) in combinations(arcs, 2))


@pytest.mark.parametrize("key", sorted(SYSTEM_ARGS))
@pytest.mark.parametrize("path", [EN, DE, CONLLX], ids=lambda p: p.name)
@pytest.mark.parametrize("labeled", [False, True], ids=["unlabeled", "labeled"])
def test_oracle_then_replay_gives_back_every_derived_sentence(key, path, labeled):
    extra = ["--labeled"] if labeled else []
    oracle = run("oracle", path, *system_args(key), *extra)
    assert oracle.returncode == 0, oracle.stderr
    replay = run("replay", "-", "--from", "conllu" if path.suffix == ".conllu" else "conllx", *system_args(key),
                 stdin=oracle.stdout)
    assert replay.returncode == 0, replay.stderr
    original = blocks(path.read_bytes())
    derived = blocks(replay.stdout)
    if key.startswith(("swap", "attardi")):
        assert derived == original  # these systems derive every tree of the samples
    else:
        assert derived == [b for b in original if not crossing(heads_of(b))]


def test_labelled_replay_takes_deprel_from_the_transitions():
    oracle = run("oracle", EN, "--system", "arc-eager", "--labeled").stdout
    tampered = oracle.replace(b"(det)", b"(DET)")
    assert tampered != oracle
    replayed = run("replay", "-", "--system", "arc-eager", stdin=tampered).stdout
    assert b"\tDET\t" in replayed and b"\tdet\t" not in replayed


def test_jsonl_stays_aligned_and_explains_null():
    result = run("oracle", EN, "--system", "arc-eager", "--format", "jsonl")
    assert result.returncode == 0
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    original = blocks(EN.read_bytes())
    assert len(records) == len(original)
    for record, block in zip(records, original):
        assert set(record) >= {"sent_id", "n", "system", "actions"}
        assert record["n"] == len(heads_of(block)) - 1
        assert (record["actions"] is None) == crossing(heads_of(block))
        if record["actions"] is None:
            assert record["reason"]
    assert b"not derivable" in result.stderr


def test_lines_format_one_line_per_sentence():
    result = run("oracle", EN, "--system", "swap", "--format", "lines")
    lines = result.stdout.decode().split("\n")[:-1]
    assert len(lines) == len(blocks(EN.read_bytes()))
    for line, block in zip(lines, blocks(EN.read_bytes())):
        n = len(heads_of(block)) - 1
        assert line.split().count("SH") >= n  # every word is shifted at least once


def test_on_unparsable_fail_and_projectivize():
    failed = run("oracle", EN, "--system", "arc-standard", "--on-unparsable", "fail")
    assert failed.returncode == 2 and b"en-2" in failed.stderr and b"Traceback" not in failed.stderr
    projected = run("oracle", EN, "--system", "arc-standard", "--on-unparsable", "projectivize")
    assert projected.returncode == 0
    out = blocks(projected.stdout)
    assert len(out) == len(blocks(EN.read_bytes()))
    assert not any(crossing(heads_of(b)) for b in out)
    replay = run("replay", "-", "--system", "arc-standard", stdin=projected.stdout)
    assert replay.returncode == 0
    assert blocks(replay.stdout) == [without_transitions(b) for b in out]


def without_transitions(block: bytes) -> bytes:
    return b"".join(line for line in block.splitlines(keepends=True) if not line.startswith(b"# transitions = "))


def test_replay_names_the_illegal_step():
    data = b"# sent_id = s1\n# transitions = SH LA LA\n1\ta\t_\t_\t_\t_\t2\td\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    result = run("replay", "-", "--system", "arc-standard", stdin=data)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith("<stdin>:2:") and "step 2" in err and "s1" in err  # the '# transitions' line


@pytest.mark.parametrize("transitions, message", [
    ("SH SH RA LA", "step 4: illegal action 'LA'"),  # stack [0, 1] after RA: LA would make the root a dependent
    ("SH", "the 1 transitions end in a configuration that is not final"),
])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_replay_points_at_the_transitions_line_of_the_sentence(tmp_path, transitions, message, ending):
    """The error is in the '# transitions' comment: its line (here 11: after a good sentence of five lines, three
    blank lines and two other comments) is where an editor should open, not the sentence's first line (9)."""
    good = "# sent_id = s1\n# transitions = SH SH LA SH RA RA\n1\ta\t_\t_\t_\t_\t2\td\t_\t_\n" \
           "2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n3\tc\t_\t_\t_\t_\t2\td\t_\t_\n"
    bad = f"# sent_id = s2\n# text = a b\n# transitions = {transitions}\n" \
          "1\ta\t_\t_\t_\t_\t2\td\t_\t_\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n"
    path = tmp_path / "in.conllu"
    path.write_bytes((good + "\n\n\n" + bad + "\n").replace("\n", ending).encode())
    failed = run("replay", path, "--system", "arc-standard")
    assert failed.returncode == 2
    assert failed.stderr.decode().startswith(f"{path}:11: arc-standard") and message in failed.stderr.decode()
    assert failed.stderr.decode().endswith(" (sentence s2)\n")
    skipped = run("replay", path, "--system", "arc-standard", "--on-error", "skip")
    assert skipped.returncode == 0 and skipped.stderr.decode().startswith(f"skipped 1 bad sentence (first: {path}:11: ")


def test_replay_without_transitions_is_an_error():
    result = run("replay", EN, "--system", "arc-standard")
    assert result.returncode == 2 and b"transitions" in result.stderr


@pytest.mark.parametrize("args,option", [
    (["oracle", EN, "--system", "arc-eager", "--degree", "2"], "--system"),
    (["coverage", EN, "--system", "arc-eager", "--max-degree", "3"], "--max-degree"),
    (["oracle", EN, "--system", "attardi", "--order", "lazy"], "--system"),
    (["oracle", EN, "--system", "no-such-system"], "--system"),
    (["oracle", EN, "--system", "no_such_module:Class"], "--system"),
])
def test_system_options_that_cannot_act_are_refused(args, option):
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"treetool: error: {option}")


def test_coverage_json_keys_and_counts():
    result = run("coverage", EN, DE, "--system", "attardi", "--degree", "2", "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    keys = {"file", "sentences", "words", "non_projective", "derivable", "canonical_failures", "min_degree", "skipped"}
    for row in [*doc["files"], doc["total"]]:
        assert set(row) == keys
    for row, path in zip(doc["files"], [EN, DE]):
        trees = [heads_of(b) for b in blocks(path.read_bytes())]
        assert row["sentences"] == len(trees)
        assert row["words"] == sum(len(t) - 1 for t in trees)
        assert row["non_projective"] == sum(crossing(t) for t in trees)
        assert set(row["min_degree"]) == {"1", "2", "3", "4", "none"}
        assert sum(row["min_degree"].values()) == row["sentences"]
        assert row["min_degree"]["1"] == row["sentences"] - row["non_projective"]
    total = doc["total"]
    for key in ("sentences", "words", "non_projective", "derivable", "canonical_failures"):
        assert total[key] == sum(row[key] for row in doc["files"])


GOOD_WORD = "1\tw\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
BAD_HEAD = "1\tw\t_\t_\t_\t_\t5\troot\t_\t_\n\n"  # HEAD beyond the sentence: refused by the reader


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_coverage_reports_the_skipped_sentences_of_each_file(tmp_path, jobs):
    """Sentences read = counted + skipped, per file, in every report form; bad sentences at a file's end and
    at the next file's start are each that file's."""
    first, second = tmp_path / "first.conllu", tmp_path / "second.conllu"
    first.write_text(GOOD_WORD + BAD_HEAD)
    second.write_text(BAD_HEAD + GOOD_WORD + GOOD_WORD + BAD_HEAD + GOOD_WORD)
    args = ("coverage", first, second, "--on-error", "skip", "--jobs", jobs)
    doc = json.loads(run(*args, "--format", "json").stdout)
    assert [(row["sentences"], row["skipped"]) for row in doc["files"]] == [(1, 1), (3, 2)]
    assert (doc["total"]["sentences"], doc["total"]["skipped"]) == (4, 3)
    tsv = run(*args, "--format", "tsv").stdout.decode().splitlines()
    assert [line.split("\t")[-1] for line in tsv] == ["skipped", "1", "2", "3"]
    table = run(*args).stdout.decode()
    rows = [line.split("│")[1:-1] for line in table.splitlines() if line.startswith("│ skipped ")]
    assert [[cell.strip() for cell in row] for row in rows] == [["skipped", "1", "2", "3"]]


@pytest.mark.parametrize("system", ["arc-eager", "arc-hybrid", "nm-arc-eager", "swap"])
def test_coverage_of_other_systems(system):
    """Projective systems derive the crossing-free trees, swap every tree; no canonical columns for them."""
    doc = json.loads(run("coverage", EN, DE, "--system", system, "--format", "json").stdout)
    trees = [heads_of(b) for path in (EN, DE) for b in blocks(path.read_bytes())]
    expected = len(trees) if system == "swap" else sum(not crossing(t) for t in trees)
    assert doc["total"]["derivable"] == expected
    assert doc["total"]["canonical_failures"] is None and doc["total"]["min_degree"] is None


def test_user_system_loaded_by_module_path():
    """A user's class (tests/example_system.py) gets the generic search; its sequences replay on arc-standard."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    result = subprocess.run([sys.executable, "-m", "treetool", "oracle", str(EN), "--system",
                             "example_system:MyArcStandard"], capture_output=True, cwd=ROOT, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    replay = run("replay", "-", "--system", "arc-standard", stdin=result.stdout)
    assert replay.returncode == 0, replay.stderr
    assert blocks(replay.stdout) == [b for b in blocks(EN.read_bytes()) if not crossing(heads_of(b))]


@pytest.mark.parametrize("command", ["oracle", "annotate"])
def test_labeled_refuses_a_user_system_that_makes_unlabelled_configurations(command):
    """Such a system crashed the search with a traceback (exit 1); now one line, exit 2, before any output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    run_it = functools.partial(subprocess.run, capture_output=True, cwd=ROOT, timeout=300, env=env)
    plain = run_it([sys.executable, "-m", "treetool", command, str(EN), "--system", "example_system:IgnoresLabels"])
    assert plain.returncode == 0, plain.stderr
    result = run_it([sys.executable, "-m", "treetool", command, str(EN), "--system", "example_system:IgnoresLabels",
                     "--labeled"])
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == b"treetool: error: --labeled: example_system:IgnoresLabels makes no labelled " \
                            b"configurations (its initial(n, labeled=True) has labels None)\n"


@pytest.mark.parametrize("key", ["attardi-2", "swap-lazy", "arc-eager"])
def test_oracle_then_replay_on_a_real_treebank(key):
    """Turkish-IMST dev (multiword tokens, non-projective trees): every derived sentence comes back byte for byte."""
    path = shared_path("data", "ud-2.2", "UD_Turkish-IMST", "tr_imst-ud-dev.conllu")
    oracle = run("oracle", path, *system_args(key), "--labeled", "--format", "jsonl")
    derived = [json.loads(line)["actions"] is not None for line in oracle.stdout.decode().splitlines()]
    sequences = run("oracle", path, *system_args(key), "--labeled")
    replay = run("replay", "-", *system_args(key), stdin=sequences.stdout)
    assert replay.returncode == 0, replay.stderr
    original = blocks(path.read_bytes())
    assert len(derived) == len(original)
    assert blocks(replay.stdout) == [b for b, ok in zip(original, derived) if ok]
    if key == "swap-lazy":
        assert all(derived)
    if key == "arc-eager":
        assert derived == [not crossing(heads_of(b)) for b in original]


@pytest.mark.parametrize("command", ["oracle", "coverage"])
def test_progress_on_a_terminal_for_the_oracle_commands(command, tmp_path):
    from test_long_sentences import run_on_terminal

    args = [command, str(DE), "--system", "swap"] + (["-o", str(tmp_path / "out.conllu")] if command == "oracle" else [])
    assert "sentences" in run_on_terminal(args)
    assert "sentences" not in run_on_terminal([*args, "--quiet"])


def user_system_run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    return subprocess.run([sys.executable, "-m", "treetool", *args, "--system", "example_system:MyArcStandard"],
                          capture_output=True, cwd=ROOT, timeout=300, env=env)


def test_max_seconds_bounds_the_generic_search():
    """A budget far too small for any search: every sentence times out, and each mode says so."""
    jsonl = user_system_run("oracle", str(EN), "--format", "jsonl", "--max-seconds", "0.000001")
    assert jsonl.returncode == 0
    records = [json.loads(line) for line in jsonl.stdout.decode().splitlines()]
    assert len(records) == 3 and all(r["actions"] is None and r["reason"].startswith("timed out") for r in records)
    assert b"3 sentences ran out of --max-seconds 1e-06 and were skipped: en-1 en-2 en-3\n" in jsonl.stderr
    failed = user_system_run("oracle", str(EN), "--max-seconds", "0.000001", "--on-timeout", "fail")
    assert failed.returncode == 2 and failed.stderr.decode().startswith(f"{EN}:")
    counted = user_system_run("coverage", str(EN), "--format", "json", "--max-seconds", "0.000001")
    assert counted.returncode == 0 and json.loads(counted.stdout)["total"]["sentences"] == 0
    assert json.loads(counted.stdout)["total"]["skipped"] == 3
    assert b"en-1, en-2, en-3" in counted.stderr


@pytest.mark.parametrize("args", [
    ["oracle", EN, "--max-seconds", "1"],
    ["coverage", EN, "--system", "attardi", "--max-seconds", "1"],
    ["oracle", EN, "--on-timeout", "skip"],
])
def test_max_seconds_refused_where_nothing_is_super_linear(args):
    result = run(*args)
    assert result.returncode == 2 and result.stderr.decode().startswith("treetool: error: --")


def test_coverage_and_oracle_reports_name_stdin_as_every_message_does(tmp_path):
    data = EN.read_bytes()
    coverage = json.loads(run("coverage", "-", "--system", "arc-eager", "--format", "json", stdin=data).stdout)
    assert [row["file"] for row in coverage["files"]] == ["<stdin>"]
    report = tmp_path / "report.json"
    oracle = run("oracle", "-", "--system", "arc-eager", "--on-unparsable", "projectivize", "-o", tmp_path / "out",
                 "--report-file", report, stdin=data)
    assert oracle.returncode == 0, oracle.stderr
    assert [row["file"] for row in json.loads(report.read_text())["files"]] == ["<stdin>"]
