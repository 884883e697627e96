"""The exact constituency loss against exhaustive search, on every sample tree of up to N words plus random trees.

    python benchmarks/constituency_exactness.py [--max-words 6] [--random 10] [PTB_DIR]

Issue 12's verification, too long for the unit tests at 6 words (they run
a subset, tests/test_constituency_dynamic.py, with the same functions):
for each system (in-order with Kparser's limits, top-down with
``max_open_nts=3``), every derivable tree of the sample with at most N words
and ``--random`` seeded random trees per length (1..N); labels = the gold
labels plus one wrong label ``ZZ``. On exploring paths chosen by the search
alone (error rates 0.1 and 0.3) every configuration's exact loss (where the
limits cannot bind) and the oracle's cost of every legal action are compared
with the search (``min_loss``).

Prints per system, source and length: trees, configurations, action costs,
mismatches, how many configurations the oracle answered by its search
fallback (``limits_may_bind``), how many of those the exact loss (which
ignores the limits) would have got wrong, how many action costs needed the
fallback for the successor, and CPU seconds (references and checks).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_constituency_dynamic import (  # noqa: E402
    SYSTEMS, Tally, check_cases, exploring_configurations, random_trees,
)

from treetool.oracles.constituency import GoldTreeError, from_nltk, get_constituency_system  # noqa: E402
from treetool.formats.ptb import read_ptb_file  # noqa: E402


def sample(folder: Path, max_words: int) -> list:
    """The sample's trees of at most ``max_words`` words (bare preterminal trees are not constituency trees)."""
    out = []
    for path in sorted(folder.glob("*.mrg")):
        for tree in read_ptb_file(path, drop_traces=True, strip_functions=True, remove_wrapper=True):
            if len(tree.leaves()) <= max_words:
                try:
                    out.append(from_nltk(tree))
                except GoldTreeError:
                    continue
    return out


def row(name: str, source: str, n: int, trees: int, tally: Tally, seconds: float) -> str:
    return (f"{name:9} {source:7} {n:>2} {trees:>6} {tally.configurations:>8} {tally.actions:>8} "
            f"{len(tally.mismatches):>10} {tally.fallback:>9} {tally.fallback_needed:>7} {tally.fallback_actions:>9} "
            f"{seconds:>8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "data" / "ptb-sample"))
    parser.add_argument("--max-words", type=int, default=6)
    parser.add_argument("--random", type=int, default=10, help="derivable random trees per length and system")
    parser.add_argument("--rates", type=float, nargs="+", default=[0.1, 0.3], help="error rates, one path each")
    parser.add_argument("--max-open-nts", type=int, default=SYSTEMS["top-down"]["max_open_nts"],
                        help="top-down's limit (the search grows about 3x per unit)")
    args = parser.parse_args()
    golds = sample(Path(args.folder), args.max_words)
    print(f"{'system':9} {'source':7} {'n':>2} {'trees':>6} {'configs':>8} {'actions':>8} {'mismatches':>10} "
          f"{'fallback':>9} {'needed':>7} {'fb costs':>9} {'cpu s':>8}")
    paths = tuple(enumerate(args.rates))
    for name, options in SYSTEMS.items():
        system = get_constituency_system(name, **{**options, **({"max_open_nts": args.max_open_nts}
                                                                  if name == "top-down" else {})})
        rng = random.Random(f"exactness:{name}")
        total, total_trees, total_seconds = Tally(), 0, 0.0
        for source in ("sample", "random"):
            for n in range(1, args.max_words + 1):
                if source == "sample":
                    trees = [gold for gold in golds if gold.end == n]
                else:
                    trees = random_trees(system, rng, n, args.random)
                trees = [gold for gold in trees if system.can_derive(gold)]
                start = time.process_time()
                cases = [(gold, *case) for gold in trees for case in exploring_configurations(system, gold, paths)]
                tally = check_cases(system, cases)
                seconds = time.process_time() - start
                print(row(name, source, n, len(trees), tally, seconds), flush=True)
                for kind, gold, config in tally.mismatches[:5]:
                    print(f"    {kind} mismatch: {gold} at {config}")
                total.add(tally)
                total_trees += len(trees)
                total_seconds += seconds
        print(row(name, "all", args.max_words, total_trees, total, total_seconds), flush=True)


if __name__ == "__main__":
    main()
