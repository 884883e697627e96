"""Every reachable configuration x every gold tree of up to N words: published oracles against exact costs.

    python benchmarks/dynamic_oracles_exhaustive.py [--max-words 6] [--nonprojective] [--only TEXT]

Too slow for a unit test at 6 words (about 10M configuration-tree pairs per
system), so it is a script; tests/test_oracles_dynamic.py does the same up
to 4 words with the exhaustive search itself. The exact costs come from the
definition (Gómez-Rodríguez, Sartorio & Satta 2014, §2.2) evaluated on the whole configuration graph at
once: the graph of a system does not depend on the gold tree, so it is built
once per sentence length, and the loss of every configuration for every gold
tree is a minimum over successors (finals: the number of wrong words), a
numpy column per tree. For 1..3 words the table is first checked against
treetool.oracles.search.ExhaustiveSearch.

Prints, per oracle and length: pairs checked and pairs whose costs differ
(0 expected for projective gold, except nm-arc-eager D as published).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from oracle_trees import all_trees, bf_projective  # noqa: E402
from treetool.oracles import ExhaustiveSearch, get_system  # noqa: E402

ORACLES = [
    ("arc-eager", "arc-eager", {}, {}),
    ("arc-hybrid", "arc-hybrid", {}, {}),
    ("nm-arc-eager L", "nm-arc-eager", {"variant": "L"}, {}),
    ("nm-arc-eager D", "nm-arc-eager", {"variant": "D"}, {}),
    ("nm-arc-eager D corrected", "nm-arc-eager", {"variant": "D"}, {"published": False}),
    ("nm-arc-eager LD", "nm-arc-eager", {"variant": "LD"}, {}),
    ("arc-eager root first", "arc-eager", {"root": "first"}, {}),
    ("arc-hybrid root last", "arc-hybrid", {"root": "last"}, {}),
    ("nm L root first", "nm-arc-eager", {"variant": "L", "root": "first"}, {}),
    ("nm D corrected root first", "nm-arc-eager", {"variant": "D", "root": "first"}, {"published": False}),
    ("nm LD root first", "nm-arc-eager", {"variant": "LD", "root": "first"}, {}),
]


def configuration_graph(system, n):
    """Reachable configurations in depth-first preorder, and each one's ``[(action, successor index)]``."""
    start = system.initial(n)
    index = {start: 0}
    order, moves = [start], [None]
    todo = [0]
    while todo:
        i = todo.pop()
        config = order[i]
        out = []
        for action in system.legal(config):
            after = system.apply(config, action)
            if after not in index:
                index[after] = len(order)
                order.append(after)
                moves.append(None)
                todo.append(index[after])
            out.append((action, index[after]))
        moves[i] = out
    return order, moves


def loss_table(system, configs, moves, trees: np.ndarray) -> np.ndarray:
    """``loss[c, t]``: fewest wrong words over the finals reachable from configuration c, for gold tree t."""
    count = len(configs)
    loss = np.full((count, len(trees)), np.iinfo(np.int32).max, dtype=np.int64)
    done = [False] * count
    stack = [(0, False)]
    while stack:  # post-order: successors first (the graph is acyclic)
        i, expanded = stack.pop()
        if done[i]:
            continue
        if not expanded:
            stack.append((i, True))
            stack.extend((j, False) for _, j in moves[i] if not done[j])
            continue
        row = loss[i]
        if system.is_final(configs[i]):
            heads = np.array(configs[i].heads)
            np.minimum(row, (trees[:, 1:] != heads[1:]).sum(axis=1), out=row)
        for _, j in moves[i]:
            np.minimum(row, loss[j], out=row)
        done[i] = True
    return loss


def check_table_against_search(system, n: int) -> None:
    configs, moves = configuration_graph(system, n)
    trees = np.array(list(all_trees(n)))
    loss = loss_table(system, configs, moves, trees)
    for t, tree in enumerate(trees.tolist()):
        search = ExhaustiveSearch(system, tree)
        for c, config in enumerate(configs):
            assert search.loss(config) == loss[c, t], (system.describe(), tree, config)


def compare(system, make_oracle, n: int, projective: bool) -> tuple[int, int]:
    configs, moves = configuration_graph(system, n)
    trees = np.array([t for t in all_trees(n) if bf_projective(t) == projective])
    if not len(trees):
        return 0, 0
    loss = loss_table(system, configs, moves, trees)
    differ = total = 0
    for t, tree in enumerate(trees.tolist()):
        oracle = make_oracle(tree)
        column = loss[:, t].tolist()
        for c, config in enumerate(configs):
            base = column[c]
            expected = {action: column[j] - base for action, j in moves[c]}
            total += 1
            differ += oracle.costs(config) != expected
    return differ, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-words", type=int, default=6)
    parser.add_argument("--nonprojective", action="store_true", help="non-projective gold trees instead")
    parser.add_argument("--only", default="", metavar="TEXT", help="only the oracles whose label contains TEXT")
    args = parser.parse_args()
    chosen = [o for o in ORACLES if args.only in o[0]]
    for name, options in {(o[1], tuple(o[2].items())) for o in chosen}:
        for n in range(1, 4):
            check_table_against_search(get_system(name, **dict(options)), n)
    print("loss table == ExhaustiveSearch on 1..3 words")
    kind = "non-projective" if args.nonprojective else "projective"
    print(f"{'oracle':26} {'words':>5} {'pairs':>9} {'differ':>8}  ({kind} gold)")
    for label, name, options, oracle_options in chosen:
        system = get_system(name, **options)
        for n in range(1, args.max_words + 1):
            make = lambda tree: system.dynamic_oracle(tree, **oracle_options)  # noqa: E731
            differ, total = compare(system, make, n, not args.nonprojective)
            print(f"{label:26} {n:>5} {total:>9} {differ:>8}", flush=True)


if __name__ == "__main__":
    main()
