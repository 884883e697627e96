"""Constituency dynamic oracles: annotate speed per loss, and how often the paper's loss differs from the exact one.

Usage: python benchmarks/constituency_oracles.py [PTB_DIR] [--limit TREES]

For each system (top-down, in-order) and loss (paper, exact): walk every tree
of the sample with exploration (error rate 0.1, seed 0), costs of every legal
action at every step (NT/PJ for every label of the sample), and print steps,
CPU seconds and steps/s. Then, on the exploring paths of the exact walk, the
share of configurations where the paper's loss differs from the exact loss,
split by a rough corner class (see ``corner_class``). Trees the oracle cannot
serve (limits may bind on a sentence longer than the search's 10 words) are
counted, not walked; so are the configurations where the search answered.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treetool.oracles.annotate import Explore
from treetool.oracles.constituency import GoldTreeError, from_nltk, get_constituency_system
from treetool.oracles.constituency.annotate import annotate_tree
from collections import Counter

from treetool.oracles.constituency.exact_loss import ExactLoss
from treetool.oracles.constituency.gold_index import GoldIndex
from treetool.oracles.constituency.paper_loss import paper_loss
from treetool.oracles.constituency.system import Open, span_of
from treetool.oracles.constituency.tree import preorder
from treetool.oracles.errors import OracleUnavailable
from treetool.formats.ptb import read_ptb_file


def load(folder: Path, limit: int | None) -> list:
    trees = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            try:
                trees.append(from_nltk(tree))
            except GoldTreeError:
                continue
    return trees[:limit]


def corner_class(config, gold: GoldIndex) -> str:
    """A rough name for why the paper's loss may differ here (exact_loss module doc, corners)."""
    opens = [(k, item) for k, item in enumerate(config.stack) if type(item) is Open]
    starts = [span_of(config.stack[k - 1])[0] if gold.in_order else item.position for k, item in opens]
    if not gold.in_order and opens and not any((opens[0][1].label, 0, gold.n) == span for span in gold.spans):
        return "wrong root"
    keys = [(item.label, start) for (_, item), start in zip(opens, starts)]
    if len(set(keys)) < len(keys):
        return "duplicate opens"
    built = set(config.built)
    if any((label, start, end) in built for label, start in keys for _, s, end in gold.spans if s == start):
        return "span already built"
    return "shared ends / other"


def main() -> None:
    args = sys.argv[1:]
    limit = None
    if "--limit" in args:
        k = args.index("--limit")
        limit = int(args[k + 1])
        del args[k:k + 2]
    folder = Path(args[0] if args else "../shared/data/ptb-sample")
    trees = load(folder, limit)
    labels = list(dict.fromkeys(node.label for gold in trees for node in preorder(gold)))
    print(f"{len(trees)} trees, {sum(t.end for t in trees)} words, {len(labels)} labels")
    print(f"{'system':10} {'loss':6} {'steps':>8} {'cpu s':>8} {'steps/s':>8} {'unserved':>8} {'paper != exact':>15}")
    for name in ("top-down", "in-order"):
        system = get_constituency_system(name)
        for loss in ("paper", "exact"):
            steps = unserved = differ = searched = 0
            kinds: Counter = Counter()
            start = time.process_time()
            for position, gold in enumerate(trees, 1):
                try:
                    walk = list(annotate_tree(system, gold, labels, policy=Explore(0.1, 0), position=position,
                                              loss=loss))
                except OracleUnavailable:
                    unserved += 1
                    continue
                steps += len(walk)
                if loss == "exact":
                    index = GoldIndex(gold, system)
                    exact = ExactLoss(index)
                    for s in walk:
                        if exact.limits_may_bind(system, s.config):
                            searched += 1
                        elif paper_loss(s.config, index) != exact.loss(s.config):
                            differ += 1
                            kinds[corner_class(s.config, index)] += 1
            seconds = time.process_time() - start
            share = f"{differ / steps:.1%}" if loss == "exact" and steps else ""
            print(f"{name:10} {loss:6} {steps:8} {seconds:8.1f} {steps / seconds:8.0f} {unserved:8} {share:>15}")
            if loss == "exact":
                print(f"    search fallback at {searched} configurations; differences by corner: {dict(kinds)}")


if __name__ == "__main__":
    main()
