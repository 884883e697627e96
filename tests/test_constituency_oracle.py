"""``treetool oracle --system top-down|in-order``: reference files byte for byte, unknown-word classes, robustness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli as run, shared_path
from treetool.formats.oracle_file import ascii_lower, unknown_class


@pytest.mark.parametrize("separate_vocab", [False, True], ids=["own-vocabulary", "vocab-file"])
@pytest.mark.parametrize("system,reference", [("top-down", "rnng-topdown.oracle"), ("in-order", "inorder.oracle")])
def test_reference_files_byte_for_byte(system: str, reference: str, separate_vocab: bool, tmp_path: Path) -> None:
    files = sorted(shared_path("data", "ptb-sample").glob("*.mrg"))
    expected = shared_path("reference", "constituency", reference).read_bytes()
    out = tmp_path / "out.oracle"
    vocab: list[object] = []
    if separate_vocab:  # the same trees as one training file: the other code path (vocabulary read first)
        (tmp_path / "train.mrg").write_bytes(b"".join(f.read_bytes() for f in files))
        vocab = ["--vocab", tmp_path / "train.mrg"]
    result = run("oracle", *files, "--system", system, *vocab, "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == expected


def test_oracle_walk_writes_the_cleaned_trees() -> None:
    """The one-line text made in the oracle walk is the reference cleaning's text; tags and words are nltk's."""
    from nltk import Tree

    from treetool.formats.ptb import read_ptb_file
    from treetool.oracles.constituency.oracle_walk import oracle_walk

    files = sorted(shared_path("data", "ptb-sample").glob("*.mrg"))
    expected = shared_path("reference", "constituency", "ptb-sample.clean.txt").read_text("utf-8").splitlines()
    got = [oracle_walk(tree, "NT", True) for path in files
           for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True)]
    assert [walk.text for walk in got] == expected
    for walk, text in zip(got, expected):
        tree = Tree.fromstring(text)
        assert (walk.tags, walk.words) == ([tag for _, tag in tree.pos()], tree.leaves())


KNOWN = frozenset({"apples", "the", "Vinken"})


@pytest.mark.parametrize("word,expected", [
    ("Pierre", "UNK-INITC"),              # one capital first; "pierre" unknown; no suffix of 5+ letters
    ("Apples", "UNK-INITC-KNOWNLC-s"),    # lower-case form known; ends in s after 'e'
    ("running", "UNK-LC-ing"),
    ("glass", "UNK-LC"),                  # -s not after s
    ("3-D", "UNK-CAPS-NUM-DASH"),         # capital after a non-letter start
    ("IBM", "UNK-CAPS"),
    ("1980s", "UNK-LC-NUM-s"),             # the s is a lower-case letter
    ("B-52s", "UNK-INITC-NUM-DASH-s"),   # one capital, first
    ("quickly", "UNK-LC-ly"),
    ("Éclairs", "UNK-LC-s"),              # bytes: 0xC3 is no letter, so no INITC (Python 2 semantics)
    ("façade", "UNK-LC"),                 # 7 bytes, ends in e
    ("!!", "UNK"),
])
def test_unknown_classes_hand_checked(word: str, expected: str) -> None:
    assert unknown_class(word, KNOWN) == expected
    assert unknown_class(word, KNOWN, "ch") == "UNK"


def test_ascii_lowercasing() -> None:
    assert ascii_lower("CAFÉ Vinken") == "cafÉ vinken"
    assert ascii_lower("CAFE Vinken-IBM") == "cafe vinken-ibm"


def _oracle(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "in.mrg"
    path.write_text(text, encoding="utf-8")
    result = run("oracle", path, *args)
    return result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8")


def test_one_word_tree_and_blank_lines(tmp_path: Path) -> None:
    code, out, err = _oracle(tmp_path, "\n\n( (INTJ (UH Yes)) )\n\n\n( (S (NN No)) )\n", "--system", "in-order")
    assert code == 0, err
    assert out == ("# (INTJ (UH Yes))\nUH\nYes\nyes\nUNK-INITC-s\nSHIFT\nPJ(INTJ)\nREDUCE\nTERM\n\n"
                   "# (S (NN No))\nNN\nNo\nno\nUNK-INITC\nSHIFT\nPJ(S)\nREDUCE\nTERM\n\n")
    code, out, _ = _oracle(tmp_path, "( (INTJ (UH Yes)) )\n", "--system", "top-down")
    assert out.splitlines()[5:] == ["NT(INTJ)", "SHIFT", "REDUCE", ""]


def test_bare_preterminal_is_unparsable(tmp_path: Path) -> None:
    code, out, err = _oracle(tmp_path, "( (UH Yes) )\n( (S (NN No)) )\n", "--system", "top-down")
    assert code == 0 and out.startswith("# (S (NN No))") and "1 of 2 trees not derivable" in err
    code, out, err = _oracle(tmp_path, "( (UH Yes) )\n", "--system", "top-down", "--on-unparsable", "fail")
    assert code == 2 and "in.mrg:1:" in err and "Traceback" not in err


@pytest.mark.parametrize("system", ["top-down", "in-order"])
def test_a_word_without_a_pos_tag_is_bad_input_not_an_underivable_tree(tmp_path: Path, system: str) -> None:
    text = "( (S (NN a)) )\n( (S (NP the (NN cat)) (VP (VBD sat))) )\n"
    code, out, err = _oracle(tmp_path, text, "--system", system)
    assert code == 2
    assert err.endswith("in.mrg:2: bracket (NP ...) holds a bare word 'the': every word needs a POS tag\n")
    code, out, err = _oracle(tmp_path, text, "--system", system, "--on-error", "skip", "--format", "jsonl")
    assert code == 0 and [json.loads(line)["line"] for line in out.splitlines()] == [1]
    assert err.startswith("skipped 1 bad sentence") and "not derivable" not in err


def test_unbalanced_brackets_name_file_and_line(tmp_path: Path) -> None:
    code, _, err = _oracle(tmp_path, "( (S (NN a)) )\n\n( (S (NN b) )\n", "--system", "top-down")
    assert code == 2 and "in.mrg:3:" in err and "unbalanced" in err
    code, _, err = _oracle(tmp_path, "( (S (NN a)) ))\n", "--system", "in-order")
    assert code == 2 and "in.mrg:1:" in err


def test_sentence_starting_with_hash_tag(tmp_path: Path) -> None:
    text = "( (S (# #) (CD 5)) )\n"
    code, out, err = _oracle(tmp_path, text, "--system", "top-down")
    assert code == 2 and "in.mrg:1:" in err and "comment" in err
    code, out, err = _oracle(tmp_path, text, "--system", "top-down", "--on-error", "skip")
    assert code == 0 and out == ""
    code, out, err = _oracle(tmp_path, text, "--system", "in-order", "--spelling", "nt-term")
    assert code == 0
    assert out.splitlines() == ["!# (S (# #) (CD 5))", "# CD", "# 5", "# 5", "UNK UNK-NUM",
                                "SHIFT", "NT(S)", "SHIFT", "REDUCE", "TERM", ""]


def test_spellings_and_vocab(tmp_path: Path) -> None:
    vocab = tmp_path / "train.mrg"
    vocab.write_text("( (S (NP (NNS Dogs)) (VP (VBP bark))) )\n( (S (NP (NNS Dogs)) (VP (VBP bark))) )\n")
    text = "( (S (NP (NNS Dogs)) (VP (VBP run))) )\n"
    code, out, err = _oracle(tmp_path, text, "--system", "in-order", "--spelling", "nt-finish", "--vocab", str(vocab))
    assert code == 0, err
    assert out.splitlines() == ["# (S (NP (NNS Dogs)) (VP (VBP run)))", "NNS VBP", "Dogs run", "dogs run",
                                "Dogs UNK-LC", "SHIFT", "NT(NP)", "REDUCE", "NT(S)", "SHIFT", "NT(VP)",
                                "REDUCE", "REDUCE", "FINISH", ""]
    code, out, _ = _oracle(tmp_path, text, "--system", "top-down", "--vocab", str(vocab), "--lang", "ch")
    assert out.splitlines()[4] == "Dogs UNK"


def test_jsonl(tmp_path: Path) -> None:
    code, out, err = _oracle(tmp_path, "( (S (NN a)) )\n( (UH b) )\n", "--system", "top-down", "--format", "jsonl")
    assert code == 0, err
    first, second = [json.loads(line) for line in out.splitlines()]
    assert first["actions"] == ["NT(S)", "SHIFT", "REDUCE"] and first["line"] == 1
    assert second["actions"] is None and "preterminal" in second["reason"]


def test_raw_input_is_cleaned(tmp_path: Path) -> None:
    text = "( (S (NP-SBJ-1 (-NONE- *T*-1)) (NP-SBJ=2 (NN x)) (VP (VBD y))) )\n"
    code, out, _ = _oracle(tmp_path, text, "--system", "top-down")
    assert out.splitlines()[0] == "# (S (NP (NN x)) (VP (VBD y)))"
    code, out, _ = _oracle(tmp_path, "(TOP (S (NN x)))\n", "--system", "top-down", "--no-clean")
    assert out.splitlines()[0] == "# (TOP (S (NN x)))"


def test_dependency_input_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.conllu"
    path.write_text("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    result = run("oracle", path, "--system", "top-down")
    assert result.returncode == 2 and b"a.conllu" in result.stderr and b"Penn Treebank" in result.stderr


@pytest.mark.parametrize("args", [
    ["--system", "in-order", "--format", "rnng"],
    ["--system", "top-down", "--format", "inorder"],
    ["--system", "top-down", "--format", "conllu"],
    ["--system", "top-down", "--spelling", "nt-term"],
    ["--system", "top-down", "--labeled"],
    ["--system", "in-order", "--on-unparsable", "projectivize"],
    ["--system", "top-down", "--format", "jsonl", "--vocab", "x.mrg"],
    ["--system", "arc-standard", "--vocab", "x.mrg"],
    ["--system", "arc-standard", "--format", "rnng"],
])
def test_inapplicable_options_refused(tmp_path: Path, args: list[str]) -> None:
    code, _, err = _oracle(tmp_path, "( (S (NN a)) )\n", *args)
    assert code == 2 and "error" in err and "Traceback" not in err


def test_constituency_oracle_does_not_import_numpy_or_nltk(tmp_path: Path) -> None:
    """Start-up is part of the speed goal (issue 12): a PTB oracle run loads neither numpy nor nltk."""
    import subprocess
    import sys

    from conftest import ROOT

    source = tmp_path / "x.mrg"
    source.write_text("( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat))) )\n")
    script = ("import sys; from treetool.commands.app import app; app(['oracle', sys.argv[1], '--system', 'in-order', "
              "'-o', sys.argv[2]], standalone_mode=False); print(sorted({'numpy', 'nltk', 'rich'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script, str(source), str(tmp_path / "out")], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_report_file_counts_each_input_and_all(tmp_path: Path) -> None:
    """As the dependency systems' report: one entry per input (the same file twice is two inputs), then the
    total; counts derived from the inputs' texts (trees, words, the one tree without a constituent)."""
    first, second = tmp_path / "a.mrg", tmp_path / "b.mrg"
    first.write_text("( (S (NP (DT a) (NN cat)) (VP (VBD sat))) )\n( (UH yes) )\n", encoding="utf-8")
    second.write_text("( (S (NN b)) )\n", encoding="utf-8")
    report = tmp_path / "counts.json"
    result = run("oracle", first, second, first, "--system", "top-down", "--report-file", report)
    assert result.returncode == 0, result.stderr
    counts = json.loads(report.read_text())
    a = {"file": str(first), "trees": 2, "words": 4, "derived": 1, "unparsable": 1}
    b = {"file": str(second), "trees": 1, "words": 1, "derived": 1, "unparsable": 0}
    assert counts == {"files": [a, b, a], "total": {"file": "total", "trees": 5, "words": 9, "derived": 3,
                                                     "unparsable": 2}}


def test_stdin_is_named_stdin_in_the_report_file_and_the_records(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = run("oracle", "-", "--from", "ptb", "--system", "top-down", "--format", "jsonl", "--report-file", report,
                 stdin=b"( (S (NN x)) )\n")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["file"] == "<stdin>"
    assert [row["file"] for row in json.loads(report.read_text())["files"]] == ["<stdin>"]
