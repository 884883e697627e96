"""Constituency losses (exact, paper, authors): how often each picks the exact optimal actions, and its speed.

Usage: python benchmarks/constituency_losses.py [PTB_DIR] [--max-words N] [--limit TREES]

For each system (top-down, in-order) the trees of the PTB sample of at most
``--max-words`` words (default 12, where the exact loss's exhaustive search
stays affordable) are walked three ways: the gold path (the static
sequence; trees the parser's limits forbid are left out) and exploring walks
driven by the exact loss (error rate 0.1 and 0.2, seed 0: with that
probability a random non-optimal action, else a random optimal one). At
every step each loss costs every legal action (``PJ``/``NT`` once per label
of the sample) and the step counts as agreeing when its cost-0 set equals
the exact loss's. Speed: steps whose costs it computed per CPU second of that
computation, over all three walks. ``authors`` is in-order only (the
authors' top-down code is not public). Prints one table and one line naming
the machine and the date.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treetool.oracles.annotate import Explore
from treetool.oracles.constituency import GoldTreeError, from_nltk, get_constituency_system
from treetool.oracles.constituency.dynamic import LOSSES_OF, ConstituencyOracle
from treetool.oracles.constituency.tree import Node, preorder
from treetool.oracles.errors import OracleUnavailable
from treetool.formats.ptb import read_ptb_file

WALKS = ("gold", 0.1, 0.2)
COMPARED = ("exact", "paper", "authors")


def load(folder: Path, max_words: int, limit: int | None) -> list[Node]:
    trees: list[Node] = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            try:
                gold = from_nltk(tree)
            except GoldTreeError:
                continue
            if gold.end <= max_words:
                trees.append(gold)
            if limit is not None and len(trees) >= limit:
                return trees
    return trees


class Tally:
    """Per loss: agreeing steps and steps per walk kind, and the CPU time its costs took."""

    def __init__(self, losses: tuple[str, ...]) -> None:
        self.agree = {(loss, walk): 0 for loss in losses for walk in WALKS}
        self.steps = dict.fromkeys(WALKS, 0)
        self.seconds = dict.fromkeys(losses, 0.0)


def walk(system, gold: Node, labels: list[str], oracles: dict, kind, position: int, tally: Tally) -> None:
    """One walk of ``kind`` ("gold" or an error rate), every loss costing every step."""
    config = system.initial(gold.end)
    upcoming = iter(system.static_oracle(gold)) if kind == "gold" else None
    choose = None if kind == "gold" else Explore(kind, 0).chooser(SimpleNamespace(position=position))
    while not system.is_final(config):
        optimal = {}
        for loss, oracle in oracles.items():
            start = time.process_time()
            costs = oracle.costs(config)
            tally.seconds[loss] += time.process_time() - start
            optimal[loss] = [a for a, c in costs.items() if c == 0]
            if loss == "exact":
                exact_costs = costs
        tally.steps[kind] += 1
        for loss in oracles:
            tally.agree[loss, kind] += set(optimal[loss]) == set(optimal["exact"])
        action = next(upcoming) if choose is None else choose(config, exact_costs, optimal["exact"])
        config = system.apply(config, action)


def measure(system_name: str, trees: list[Node], labels: list[str], max_words: int) -> tuple[Tally, int]:
    system = get_constituency_system(system_name)
    losses = tuple(loss for loss in COMPARED if loss in LOSSES_OF[system_name])
    tally, unserved = Tally(losses), 0
    for position, gold in enumerate(trees, 1):
        oracles = {loss: ConstituencyOracle(system, gold, labels, loss, max_length=max_words) for loss in losses}
        for kind in WALKS:
            if kind == "gold" and system.static_oracle(gold) is None:
                continue
            try:
                walk(system, gold, labels, oracles, kind, position, tally)
            except OracleUnavailable:
                unserved += 1
    return tally, unserved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "data" / "ptb-sample"))
    parser.add_argument("--max-words", type=int, default=12)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    trees = load(Path(args.folder), args.max_words, args.limit)
    labels = sorted({node.label for gold in trees for node in preorder(gold)})
    print(f"{len(trees)} trees of at most {args.max_words} words, {len(labels)} labels; share of steps whose "
          "optimal set equals the exact loss's")
    print(f"{'system':9} {'loss':8} {'gold path':>16} {'explore 0.1':>18} {'explore 0.2':>18} {'steps/s':>8}")
    for system_name in ("top-down", "in-order"):
        tally, unserved = measure(system_name, trees, labels, args.max_words)
        for loss in COMPARED:
            if loss not in tally.seconds:
                print(f"{system_name:9} {loss:8} {'(code not public)':>16}")
                continue
            cells = [f"{100 * tally.agree[loss, w] / max(tally.steps[w], 1):5.1f}% of {tally.steps[w]:>6}"
                     for w in WALKS]
            speed = sum(tally.steps.values()) / max(tally.seconds[loss], 1e-9)
            print(f"{system_name:9} {loss:8} {cells[0]:>16} {cells[1]:>18} {cells[2]:>18} {speed:8.0f}")
        if unserved:
            print(f"{system_name:9} walks left unfinished (exact search beyond its limits): {unserved}")
    print(f"measured {datetime.date.today()} on {platform.node()} ({platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()})")


if __name__ == "__main__":
    main()
