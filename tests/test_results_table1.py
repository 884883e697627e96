"""Cohen et al. (2012) Table 1's measure on the UD 2.2 training files, as benchmarks/RESULTS.md publishes it, recomputed.

The rows are parsed out of benchmarks/RESULTS.md and compared exactly with
`treetool coverage --system attardi --degree 2` (run in process), so the
published figures and the code cannot drift apart. Sentence, word and non-projective counts are also
recomputed here from the heads with the brute-force crossing test, so the
first columns do not rest on the code under test; the degree columns rest on
the canonical oracle, which tests/test_oracles_static.py holds to exhaustive
search.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from treetool.commands.app import app
from conftest import results_section, ud_train_file
from treetool.treebank import read_treebank

NUMBER = r"(\d[\d,]*)"
ROW = re.compile(rf"^\| ([A-Z][\w-]+) \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER} \| "
                 rf"{NUMBER} / {NUMBER} / {NUMBER} / {NUMBER} / {NUMBER} \|$", re.M)


def published_table1() -> dict[str, list[int]]:
    text = results_section("oracle_library.py")
    start = text.index("| train file | sentences | non-projective | derivable, degree 2 |")
    table = text[start:text.index("\n\n", start)]
    return {name: [int(v.replace(",", "")) for v in values] for name, *values in ROW.findall(table)}


def test_table1_lists_the_five_treebanks():
    assert sorted(published_table1()) == ["English-EWT", "Gothic-PROIEL", "Greek-GDT", "Portuguese-Bosque", "Turkish-IMST"]


def crossing(heads: list[int]) -> bool:
    arcs = sorted((min(h, d), max(h, d)) for d, h in enumerate(heads) if d > 0)
    return any(a < c < b < e for i, (a, b) in enumerate(arcs) for c, e in arcs[i + 1:])


@pytest.mark.parametrize("treebank", sorted(published_table1()))
def test_table1_row(treebank):
    path = ud_train_file(treebank)
    sentences, non_projective, derivable, failures, *degrees = published_table1()[treebank]
    trees = [s.head_list for s in read_treebank(str(path))]
    assert sentences == len(trees)
    assert non_projective == sum(crossing(t) for t in trees)
    result = CliRunner().invoke(app, ["coverage", str(path), "--system", "attardi", "--degree", "2",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["total"]
    assert (row["sentences"], row["non_projective"], row["derivable"], row["canonical_failures"]) == (
        sentences, non_projective, derivable, failures)
    assert list(row["min_degree"].values()) == degrees
