"""`stats --labels` / `--labels-after`: counted against the DEPREL column of the files themselves,
and of what `projectivize --method pseudo --scheme S` really writes; the --by-length bar chart."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, run_cli, shared_path
from treetool.report import bar, bar_chart

EN = SAMPLE_DATA / "en_sample.conllu"


def deprel_column(path: Path) -> Counter:
    counts: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if not line.startswith("#") and len(cols) >= 8 and cols[0].isdigit():
            counts[cols[7]] += 1
    return counts


def stats_json(*args: object) -> dict:
    result = run_cli("stats", *args, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_labels_count_the_deprel_column():
    de = SAMPLE_DATA / "de_sample.conllu"
    doc = stats_json(EN, de, "--labels")
    assert doc["files"][0]["labels"] == deprel_column(EN)
    assert doc["total"]["labels"] == deprel_column(EN) + deprel_column(de)
    assert "labels_after" not in doc["total"]
    assert "labels" not in stats_json(EN)["total"]


@pytest.mark.parametrize("scheme", ["head", "path", "head+path"])
def test_labels_after_are_what_projectivize_writes(tmp_path, scheme):
    source = shared_path("data", "ud-2.2", "UD_Ancient_Greek-PROIEL", "grc_proiel-ud-dev.conllu")
    out = tmp_path / "pseudo.conllu"
    assert run_cli("projectivize", source, "--method", "pseudo", "--scheme", scheme, "-o", out).returncode == 0
    written = deprel_column(out)
    after = stats_json(source, "--labels-after", scheme)["total"]["labels_after"]
    assert after == {"scheme": scheme, "distinct": len(written), "counts": dict(written)}
    assert set(written) - set(deprel_column(source))  # the scheme really adds labels here


def test_the_table_shows_the_distinct_count_and_new_labels():
    text = run_cli("stats", EN, "--labels-after", "head").stdout.decode()
    assert "labels_after_distinct" in text and "nmod|nsubj:pass" in text  # en-2: 'issue' lifted off 'hearing'
    assert run_cli("stats", EN, "--labels-after", "baseline").returncode == 2


def test_bar_is_scaled_to_the_largest_value_in_eighths():
    assert bar(50, 100, 10) == "█" * 5
    assert bar(100, 100, 10) == "█" * 10
    assert bar(1, 16, 2) == "▏"  # 1/8 of a cell
    assert bar(0, 100, 10) == ""
    lines = bar_chart([("1-10", 25.0, "(n=4)"), ("11-20", 100.0, "(n=1)"), ("21-30", None, "(n=0)")], width=8)
    assert lines == [" 1-10 │██        25.00 (n=4)", "11-20 │████████ 100.00 (n=1)", "21-30 │            n/a (n=0)"]


def test_by_length_table_has_a_bar_chart():
    text = run_cli("stats", EN, SAMPLE_DATA / "de_sample.conllu", "--by-length").stdout.decode()
    assert "non-projective % by length" in text
    # total: 1-10 has 1 of 4 non-projective, 11-20 1 of 1: a full bar (30 cells) and a quarter of it (7.5)
    one = next(line for line in text.splitlines() if line.lstrip().startswith("1-10 │"))
    two = next(line for line in text.splitlines() if line.lstrip().startswith("11-20 │"))
    assert (one.count("█"), "▌" in one, two.count("█")) == (7, True, 30)
    assert "█" not in run_cli("stats", EN, "--by-length", "--format", "tsv").stdout.decode()
