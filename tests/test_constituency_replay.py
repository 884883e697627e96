"""``treetool replay --system top-down|in-order``: oracle files back to trees.

The references are independent of the replay code: the ``# <tree>`` lines
that RNNG's and In-Order's own scripts wrote above their actions
(../shared/reference/constituency), and the trees that ``treetool oracle``
cleaned, which the PTB reader and writer produce without any transition
system.
"""

from __future__ import annotations

import random

import pytest
from nltk import Tree

from treetool.oracles.constituency.tree import bracketed, gold_and_tokens, postorder, tree_from_spans
from treetool.formats.ptb import read_ptb_file, tree_to_line

from conftest import ROOT, run_cli, shared_path
from test_constituency_dynamic import random_tree

SAMPLE = ROOT / "sample_data" / "wsj_sample.mrg"


def comment_trees(oracle_text: str) -> list[str]:
    """The tree of every block's first line, without its comment prefix."""
    return [line.split(" ", 1)[1] for line in oracle_text.splitlines() if line.startswith(("# ", "!# "))]


@pytest.mark.parametrize("name,system", [("rnng-topdown.oracle", "top-down"), ("inorder.oracle", "in-order")])
def test_reference_files_replay_to_their_trees(name, system):
    path = shared_path("reference", "constituency", name)
    result = run_cli("replay", path, "--system", system)
    assert result.returncode == 0, result.stderr
    expected = comment_trees(path.read_text(encoding="utf-8"))
    assert len(expected) > 1000
    assert result.stdout.decode("utf-8").splitlines() == expected


@pytest.mark.parametrize("system,spelling", [("top-down", None), ("in-order", "pj-term"), ("in-order", "nt-term"),
                                             ("in-order", "nt-finish")])
def test_oracle_then_replay_gives_the_cleaned_trees(tmp_path, system, spelling):
    oracle = tmp_path / "x.oracle"
    args = ["oracle", SAMPLE, "--system", system, "-o", oracle] + (["--spelling", spelling] if spelling else [])
    assert run_cli(*args).returncode == 0
    result = run_cli("replay", oracle, "--system", system)
    assert result.returncode == 0, result.stderr
    cleaned = [tree_to_line(t) for t in read_ptb_file(SAMPLE, drop_traces=True, strip_functions=True,
                                                      remove_wrapper=True)]
    assert result.stdout.decode("utf-8").splitlines() == cleaned


def test_tree_from_spans_inverts_postorder():
    rng = random.Random(5)
    for n in [1, 2, 3, 5, 8, 13] * 5:
        tree = random_tree(rng, n)
        gold, tags, words = gold_and_tokens(tree)
        rebuilt = tree_from_spans(postorder(gold), n)
        assert rebuilt == gold
        assert Tree.fromstring(bracketed(rebuilt, tags, words)) == tree


def test_deep_tree_has_no_recursion_limit():
    n = 3000
    spans = [("X", k, n) for k in range(n - 1, -1, -1)]  # a right-branching chain, built bottom-up
    tree = tree_from_spans(spans, n)
    text = bracketed(tree, ["T"] * n, [f"w{i}" for i in range(n)])
    assert text.count("(X ") == n and text.startswith("(X (T w0) (X (T w1) ")


BLOCK = "# (S (NN a) (NN b))\nNN NN\na b\na b\na b\n"


@pytest.mark.parametrize("actions,line,message", [
    (["NT(S)", "SHIFT", "REDUCE", "REDUCE"], 8, "step 3: illegal action 'REDUCE'"),
    (["NT(S)", "SHIFT", "SHIFT"], 1, "end before a final configuration"),
    (["NT(S)", "JUMP"], 7, "illegal action 'JUMP'"),
])
def test_bad_actions_are_errors_at_their_line(tmp_path, actions, line, message):
    path = tmp_path / "bad.oracle"
    path.write_text(BLOCK + "\n".join(actions) + "\n\n")
    result = run_cli("replay", path, "--system", "top-down")
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"{path}:{line}: ") and message in result.stderr.decode()


@pytest.mark.parametrize("text,line,message", [
    ('{"sent_id": "1", "actions": ["SHIFT"]}\n', 1, "jsonl"),
    ("NN NN\na b\n", 1, "expected a '# <tree>' line"),
    ("# (S (NN a))\nNN\na\n", 1, "ends before its actions"),
    ("# (S (NN a) (NN b))\nNN\na b\na b\na b\nSHIFT\n", 3, "1 POS tags for 2 tokens"),
    ("# sent_id = 1\n# text = a b\n1\ta\t_\tNN\t_\t_\t0\troot\t_\t_\n2\tb\t_\tNN\t_\t_\t1\tdep\t_\t_\n", 3,
     "a tab-separated line, as in a CoNLL treebank"),
])
def test_malformed_blocks_are_errors(tmp_path, text, line, message):
    path = tmp_path / "bad.oracle"
    path.write_text(text)
    result = run_cli("replay", path, "--system", "top-down")
    assert result.returncode == 2 and result.stderr.decode().startswith(f"{path}:{line}: ")
    assert message in result.stderr.decode()


def test_skip_drops_bad_blocks_and_counts_them(tmp_path):
    path = tmp_path / "mixed.oracle"
    good = BLOCK + "NT(S)\nSHIFT\nSHIFT\nREDUCE\n\n"
    path.write_text(good + BLOCK + "SHIFT\n\n" + good)
    result = run_cli("replay", path, "--system", "top-down", "--on-error", "skip")
    assert result.returncode == 0
    assert result.stdout.decode() == "(S (NN a) (NN b))\n" * 2
    assert "1" in result.stderr.decode() and "skipped" in result.stderr.decode()


def test_dependency_options_are_refused(tmp_path):
    path = tmp_path / "x.oracle"
    path.write_text(BLOCK + "NT(S)\nSHIFT\nSHIFT\nREDUCE\n\n")
    result = run_cli("replay", path, "--system", "in-order", "--degree", "2")
    assert result.returncode == 2 and "--degree" in result.stderr.decode()


def test_an_output_named_for_conll_is_refused_and_kept(tmp_path):
    """Replay writes PTB brackets: -o out.conllu is refused before it is opened, as for the dependency systems."""
    oracle = tmp_path / "in.oracle"
    oracle.write_text(run_cli("oracle", SAMPLE, "--system", "top-down").stdout.decode())
    target = tmp_path / "out.conllu"
    target.write_text("kept\n")
    result = run_cli("replay", oracle, "--system", "top-down", "-o", target)
    assert result.returncode == 2 and target.read_text() == "kept\n"
    assert result.stderr.decode() == f"treetool: error: -o {target} cannot hold the constituency trees of {oracle}\n"
