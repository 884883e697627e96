"""examples/train_arc_eager.py, run as a user runs it: one epoch on the first sentences of Greek-GDT (issue 23).

The script's own claims are checked against figures computed here: how many training sentences arc-eager can
derive (the projective ones, by a direct test for crossing arcs), and that both trainings learn (a perceptron
that has seen a few dozen sentences once attaches far more of those words correctly than a parser that is not
learning: with the update reversed or missing, the score falls below half).
"""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT, shared_path

LIMIT = 40


def _projective(heads: list[int]) -> bool:
    """No two arcs cross, and no arc covers the root (the artificial root 0 heads from position 0)."""
    arcs = [(min(d, h), max(d, h)) for d, h in enumerate(heads) if d]
    return not any(a < c < b < d for a, b in arcs for c, d in arcs)


def _first_trees(path, limit: int) -> list[list[int]]:
    trees, heads = [], [-1]
    for line in path.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) == 10 and columns[0].isdigit():
            heads.append(int(columns[6]))
        elif not line.strip() and len(heads) > 1:
            trees.append(heads)
            heads = [-1]
            if len(trees) == limit:
                break
    return trees


def test_one_epoch_on_a_slice_of_greek_gdt():
    train = shared_path("data", "ud-2.2", "UD_Greek-GDT", "el_gdt-ud-train.conllu")
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_arc_eager.py"), str(train), str(train), "--epochs", "1",
         "--limit", str(LIMIT)],
        capture_output=True, text=True, timeout=300, check=True,
    )
    trees = _first_trees(train, LIMIT)
    derivable = [t for t in trees if _projective(t)]
    words = sum(len(t) - 1 for t in derivable)
    assert run.stdout.splitlines()[0].startswith(f"{len(derivable)} training sentences ({words} words)")
    for oracle in ("static", "dynamic"):
        line = re.search(rf"^{oracle} +epoch 1: dev UAS ([0-9.]+)  dev LAS ([0-9.]+)", run.stdout, re.M)
        assert line, run.stdout
        uas, las = float(line[1]), float(line[2])
        assert 70 < uas <= 100 and las <= uas, run.stdout
