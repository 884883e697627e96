"""``treetool stats`` on PTB trees: hand-counted small trees."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli as run

TREES = (
    "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (NP (-NONE- *T*-1)))) )\n"   # S NP VP after cleaning; VP unary
    "( (FRAG (NP (NP (NN x)))) )\n"                                           # chain of 3 over a word
    "( (A (B (C (D (NN y))))) )\n"                                            # chain of 4: in-order cannot end on it
)


def test_ptb_stats_hand_counted(tmp_path: Path) -> None:
    path = tmp_path / "t.mrg"
    path.write_text(TREES, encoding="utf-8")
    result = run("stats", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    total = json.loads(result.stdout)["total"]
    assert total["trees"] == 3 and total["words"] == 3 + 1 + 1
    assert total["constituents"] == 3 + 3 + 4
    assert total["labels"] == {"NP": 3, "S": 1, "VP": 1, "FRAG": 1, "A": 1, "B": 1, "C": 1, "D": 1}
    assert total["unary_nodes"] == 1 + 3 + 4          # VP (sat); FRAG, NP, NP; A..D
    assert total["unary_chains"] == 3 and total["max_unary_chain"] == 4
    assert total["max_depth"] == 4
    assert total["derivable_top-down_pct"] == 100.0
    assert abs(total["derivable_in-order_pct"] - 200 / 3) < 0.01


def test_ptb_stats_refusals_and_empty(tmp_path: Path) -> None:
    path = tmp_path / "t.mrg"
    path.write_text("", encoding="utf-8")
    result = run("stats", path, "--format", "json", "--from", "ptb")
    assert result.returncode == 0
    assert json.loads(result.stdout)["total"]["max_depth"] is None
    assert run("stats", path, "--from", "ptb", "--by-length").returncode == 2
    conllu = tmp_path / "a.conllu"
    conllu.write_text("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    assert run("stats", conllu, "--no-clean").returncode == 2


def test_a_bare_word_is_bad_input_not_a_tree_without_constituents(tmp_path):
    path = tmp_path / "bare.mrg"
    path.write_text("(S (NN a))\n((NN hello))\n(S (NP the (NN cat)))\n")
    failed = run("stats", path)
    assert failed.returncode == 2 and failed.stderr.decode().startswith(f"{path}:3: ")
    skipped = run("stats", path, "--on-error", "skip", "--format", "json")
    total = json.loads(skipped.stdout)["total"]
    assert skipped.returncode == 0 and (total["trees"], total["constituents"], total["skipped"]) == (2, 1, 1)


def test_stdin_is_named_stdin_in_the_report_and_the_messages() -> None:
    doc = json.loads(run("stats", "-", "--from", "ptb", "--format", "json", stdin=b"(S (NN x))\n").stdout)
    assert [row["file"] for row in doc["files"]] == ["<stdin>"]
    bad = run("stats", "-", "--from", "ptb", stdin=b"(S (NN x))\n(S (NP the (NN x)))\n")
    assert bad.returncode == 2
    assert bad.stderr.decode() == "<stdin>:2: bracket (NP ...) holds a bare word 'the': every word needs a POS tag\n"
