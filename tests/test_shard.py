"""``--shard K/N`` (issue 26): windows cut at sentence starts, numbered as in one run, outputs that concatenate.

The expected shard of every sentence is derived from a whole-file read, independently of the shard scanner: a
sentence belongs to shard K when its start (the first byte of its first line; 0 for a file's first sentence) is
in ``[size*(K-1)//N, size*K//N)``. The scanner's chunked counting is exercised with tiny chunks.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from pathlib import Path

import pytest

import treetool.shard as shard_module
from conftest import run_cli, shared_path
from oracle_trees import rooted_tree
from treetool.shard import Shard, find_window
from treetool.treebank import read_treebank

COUNTS = (1, 2, 3, 7)


def _conll_sentence(rng: random.Random, n: int, sent_id: str | None) -> str:
    heads = rooted_tree(n, rng)
    lines = [f"# sent_id = {sent_id}"] if sent_id else []
    lines += [f"{i}\tw{i}\tw\tX\tX\t_\t{heads[i]}\t{'root' if heads[i] == 0 else 'dep'}\t_\t_" for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


def _messy_conll(rng: random.Random, sentences: int, sent_ids: bool = True) -> bytes:
    """Sentences separated by one or more blank lines, some of spaces, tabs or '\\r'; maybe leading blank lines,
    maybe no final newline."""
    separators = ["\n", "\n\n", " \n", "\t\n\n", "\r\n", "\n  \n"]
    text = rng.choice(["", "\n", " \n\n"])
    for k in range(sentences):
        text += _conll_sentence(rng, rng.randint(1, 7), f"s{k}" if sent_ids else None)
        text += rng.choice(separators)
    if rng.random() < 0.3:
        text = text.rstrip("\n \t\r")
    return text.encode()


def _expected_shards(path: Path, fmt: str, n: int) -> list[list[tuple[int, int, bytes]]]:
    """(line, position, raw) of the sentences of each shard, by the definition, from a whole-file read."""
    size = path.stat().st_size
    shards: list[list[tuple[int, int, bytes]]] = [[] for _ in range(n)]
    offset = 0
    for k, sentence in enumerate(read_treebank(str(path), fmt)):
        raw = sentence.raw
        start = 0 if k == 0 else offset + len(raw) - len(raw.lstrip(b" \t\r\n"))
        shards[next(i for i in range(n) if start < size * (i + 1) // n)].append((sentence.line, sentence.position, raw))
        offset += len(raw)
    return shards


@pytest.mark.parametrize("chunk", [5, 64, 1 << 22])
def test_conll_shards_hold_the_sentences_that_start_in_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            chunk: int) -> None:
    monkeypatch.setattr(shard_module, "_CHUNK", chunk)
    rng = random.Random(chunk)
    for trial in range(12):
        path = tmp_path / f"t{trial}.conllu"
        path.write_bytes(_messy_conll(rng, rng.randint(1, 12)))
        whole = b"".join(s.raw for s in read_treebank(str(path)))
        assert whole == path.read_bytes()
        for n in COUNTS:
            got = [[(s.line, s.position, s.raw) for s in read_treebank(str(path), shard=Shard(k, n))]
                   for k in range(1, n + 1)]
            assert got == _expected_shards(path, "conllu", n), (trial, n)


def test_positions_count_malformed_sentences_too(tmp_path: Path) -> None:
    path = tmp_path / "bad.conllu"
    good = _conll_sentence(random.Random(1), 3, None)
    path.write_text(good + "\n" + "1\tbroken\n" + "\n" + good + "\n" + good)
    skipped: list = []
    positions = [s.position for s in read_treebank(str(path), on_error=skipped.append)]
    assert positions == [1, 3, 4] and len(skipped) == 1
    by_shard = [s.position for k in (1, 2, 3) for s in read_treebank(str(path), on_error=list().append,
                                                                       shard=Shard(k, 3))]
    assert by_shard == positions


def _random_bracket(rng: random.Random, depth: int = 0) -> str:
    if depth > 2 or rng.random() < 0.3:
        return f"(T w{rng.randint(0, 9)})"
    children = " ".join(_random_bracket(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    return f"(X{depth}{rng.choice([' ', chr(10) + '  '])}{children})"


def test_ptb_shards_cut_at_top_level_brackets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    for trial in range(15):
        trees = [_random_bracket(rng) for _ in range(rng.randint(1, 10))]
        text = "".join(tree + rng.choice(["\n", " ", "\n\n", ")\n"]) for tree in trees)  # ")" at depth 0: stray
        path = tmp_path / f"t{trial}.mrg"
        path.write_text(text)
        whole = list(read_treebank(str(path), "ptb", ptb_positions=True, on_error=list().append))
        # a tree starts at its "(": the k-th top-level "(" of the text (stray ")" ignored)
        starts, depth = [], 0
        for index, char in enumerate(text):
            if char == "(":
                starts += [index] if depth == 0 else []
                depth += 1
            elif char == ")" and depth:
                depth -= 1
        assert [position for _, position, _ in whole] == list(range(1, len(starts) + 1))
        size = len(text.encode())
        for n in COUNTS:
            for k in range(1, n + 1):
                low, high = size * (k - 1) // n, size * k // n
                wanted = [(line, position) for (line, position, _), start in zip(whole, starts)
                          if (low <= start < high or (k == 1 and start < high))]
                got = [(line, position) for line, position, _ in
                       read_treebank(str(path), "ptb", ptb_positions=True, shard=Shard(k, n), on_error=list().append)]
                assert got == wanted, (trial, n, k)


@pytest.mark.parametrize("text, message", [("0/3", "between 1 and N"), ("4/3", "between 1 and N"), ("3", "K/N"),
                                           ("a/b", "K/N"), ("1/0", "between 1 and N"),
                                           ("²/3", "K/N"), ("1/٣", "K/N")])  # digits to Unicode, not numbers
def test_shard_parse_refuses_what_is_not_k_of_n(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Shard.parse(text)


def _corpus(tmp_path: Path, sentences: int = 60) -> Path:
    path = tmp_path / "corpus.conllu"
    path.write_bytes(_messy_conll(random.Random(7), sentences))
    return path


def _sharded_equals_whole(tmp_path: Path, path: Path, *args: str) -> None:
    whole = run_cli(*args, path, "-o", tmp_path / "whole.out")
    assert whole.returncode == 0, whole.stderr
    expected = (tmp_path / "whole.out").read_bytes()
    assert expected
    for n in COUNTS:
        parts = b""
        for k in range(1, n + 1):
            result = run_cli(*args, path, "--shard", f"{k}/{n}", "-o", tmp_path / "part.out")
            assert result.returncode == 0, result.stderr
            parts += (tmp_path / "part.out").read_bytes()
        assert parts == expected, (args, n)


COMMANDS = [
    ("projectivize", "--count"),
    ("projectivize", "--method", "pseudo"),
    ("oracle", "--system", "arc-eager", "--format", "jsonl"),
    ("annotate", "--system", "arc-hybrid", "--policy", "explore", "--error-rate", "0.3", "--seed", "4"),
    ("filter", "--max-words", "4"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_shards_concatenated_are_one_run(tmp_path: Path, args: tuple[str, ...]) -> None:
    _sharded_equals_whole(tmp_path, _corpus(tmp_path), *args)


def test_explore_walks_depend_on_the_sentence_not_on_the_shard(tmp_path: Path) -> None:
    """Without sent_ids the records name sentences by position; both those and the random walks must match."""
    path = tmp_path / "noids.conllx"
    path.write_bytes(_messy_conll(random.Random(3), 25, sent_ids=False).replace(b"# sent_id", b"#"))
    path.write_bytes(b"\n".join(line for line in path.read_bytes().split(b"\n") if not line.startswith(b"#")))
    _sharded_equals_whole(tmp_path, path, "annotate", "--system", "arc-eager", "--policy", "explore", "--seed", "9")


def test_ptb_shards_concatenated_are_one_run(tmp_path: Path) -> None:
    sample = shared_path("data", "ptb-sample", "wsj_0001.mrg")
    text = "".join(p.read_text() for p in sorted(sample.parent.glob("wsj_000*.mrg")))
    path = tmp_path / "wsj.mrg"
    path.write_text(text)
    labels = tmp_path / "labels.txt"
    labels.write_text("S\nNP\nVP\nPP\nSBAR\nADJP\nADVP\nQP\nWHNP\nPRN\n")
    _sharded_equals_whole(tmp_path, path, "filter", "--drop-traces")
    _sharded_equals_whole(tmp_path, path, "oracle", "--system", "top-down", "--vocab", str(path))
    _sharded_equals_whole(tmp_path, path, "oracle", "--system", "in-order", "--format", "jsonl")


def test_shard_reports_add_up(tmp_path: Path) -> None:
    path = _corpus(tmp_path, 40)
    whole = json.loads(run_cli("coverage", path, "--format", "json").stdout)["total"]
    parts = [json.loads(run_cli("coverage", path, "--format", "json", "--shard", f"{k}/3").stdout)["total"]
             for k in (1, 2, 3)]
    for key in ("sentences", "words", "non_projective", "derivable", "canonical_failures"):
        assert sum(part[key] for part in parts) == whole[key], key
    # with bad sentences skipped (a HEAD beyond the sentence), each shard's sentences + skipped are those it read
    rng, broken = random.Random(5), {0, 13, 26, 39}
    sentences = [_conll_sentence(rng, rng.randint(1, 7), f"s{k}") for k in range(40)]
    bad = tmp_path / "bad.conllu"
    bad.write_text("\n".join(re.sub(r"\t\d+\t(\w+)\t_\t_\n$", r"\t99\t\1\t_\t_\n", s) if k in broken else s
                             for k, s in enumerate(sentences)) + "\n")
    totals = [json.loads(run_cli("coverage", bad, "--format", "json", "--on-error", "skip", "--shard", f"{k}/3").stdout)
              ["total"] for k in (1, 2, 3)]
    assert sum(t["skipped"] for t in totals) == len(broken)
    assert sum(t["sentences"] + t["skipped"] for t in totals) == len(sentences)
    stats = [json.loads(run_cli("stats", path, "--format", "json", "--shard", f"{k}/3").stdout)["total"]
             for k in (1, 2, 3)]
    assert sum(s["sentences"] for s in stats) == whole["sentences"] == 40


def test_shard_refuses_what_it_cannot_cut(tmp_path: Path) -> None:
    path = _corpus(tmp_path, 5)
    packed = tmp_path / "corpus.conllu.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    cases = [
        (("projectivize", packed, "--shard", "1/2"), "compressed"),
        (("projectivize", "-", "--shard", "1/2"), "not stdin"),
        (("projectivize", path, path, "--shard", "1/2"), "one input file"),
        (("annotate", path, "--system", "arc-eager", "--policy", "predicted", "--predicted", path, "--shard", "1/2"),
         "--predicted"),
    ]
    for args, message in cases:
        result = run_cli(*args, stdin=b"")
        assert result.returncode == 2 and message in result.stderr.decode(), (args, result.stderr)
        assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("name, reason", [("folder.conllu", "Is a directory"), ("missing.conllu", "No such file")])
def test_shard_of_what_cannot_be_read_says_why_as_any_input(tmp_path: Path, name: str, reason: str) -> None:
    """Not called a pipe, a FIFO or a device: the operating system's reason, as for an input without --shard."""
    (tmp_path / "folder.conllu").mkdir()
    plain = run_cli("projectivize", tmp_path / name)
    result = run_cli("projectivize", tmp_path / name, "--shard", "1/2")
    assert result.returncode == plain.returncode == 2 and result.stdout == b""
    assert result.stderr == plain.stderr
    assert result.stderr.startswith(f"treetool: error: {tmp_path / name}: {reason}".encode())
    assert result.stderr.count(b"\n") == 1


def test_shard_refuses_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.conllu"
    os.mkfifo(fifo)
    with pytest.raises(Exception, match="regular file"):
        find_window(str(fifo), "conllu", Shard(1, 2))
    # the command refuses it before opening it: opening a FIFO without a writer would wait for ever
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "treetool", "projectivize", str(fifo), "--shard", "1/2"],
                            capture_output=True, timeout=60)
    assert result.returncode == 2 and b"regular file" in result.stderr and b"Traceback" not in result.stderr


def test_constituency_runs_that_need_the_whole_file_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.mrg"
    path.write_text("( (S (NP (DT The) (NN cat)) (VP (VBD sat))) )\n" * 4)
    oracle = run_cli("oracle", path, "--system", "top-down", "--shard", "1/2")
    assert oracle.returncode == 2 and "--vocab" in oracle.stderr.decode()
    annotate = run_cli("annotate", path, "--system", "top-down", "--shard", "1/2")
    assert annotate.returncode == 2 and "--labels" in annotate.stderr.decode()


def _dask_example():
    import importlib.util

    spec = importlib.util.spec_from_file_location("shard_with_dask", Path(__file__).parents[1] / "examples" /
                                                  "shard_with_dask.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dask_recipe_on_a_local_cluster_of_two_workers(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed: the Dask recipe is not run")
    path = _corpus(tmp_path, 30)
    args = ["annotate", "--system", "arc-eager", "--policy", "explore", "--seed", "2"]
    assert run_cli(*args, path, "-o", tmp_path / "whole.jsonl").returncode == 0
    _dask_example().run(args, str(path), str(tmp_path / "joined.jsonl"), 3)
    assert (tmp_path / "joined.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.conllu", "joined.jsonl", "whole.jsonl"]


def test_the_gnu_parallel_recipe(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    if shutil.which("parallel") is None:
        pytest.skip("GNU parallel is not installed: its recipe is not run")
    path = _corpus(tmp_path, 30)
    treetool = f"{sys.executable} -m treetool"
    whole = subprocess.run([*treetool.split(), "projectivize", str(path)], capture_output=True, check=True).stdout
    joined = subprocess.run(f"parallel -k {treetool} projectivize {path} --shard {{}}/4 -o - ::: 1 2 3 4",
                            shell=True, capture_output=True, check=True).stdout
    assert joined == whole


def test_replay_shards_concatenated_are_one_run(tmp_path: Path) -> None:
    oracle = tmp_path / "corpus.oracle"
    assert run_cli("oracle", _corpus(tmp_path), "--system", "arc-hybrid", "-o", oracle).returncode == 0
    _sharded_equals_whole(tmp_path, oracle, "replay", "--system", "arc-hybrid")
    trees = tmp_path / "trees.mrg"
    trees.write_text("".join(_random_bracket(random.Random(k)) + "\n" for k in range(20)))
    blocks = tmp_path / "trees.oracle"
    assert run_cli("oracle", trees, "--system", "in-order", "--no-clean", "-o", blocks).returncode == 0
    _sharded_equals_whole(tmp_path, blocks, "replay", "--system", "in-order")
