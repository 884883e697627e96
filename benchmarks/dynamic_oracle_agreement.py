"""How often the published dynamic oracles differ from the exact costs (exhaustive search).

    python benchmarks/dynamic_oracle_agreement.py [--trees N] [--seed S]

For each published oracle (arc-eager, arc-hybrid, nm-arc-eager L/D/LD, and
nm D with ``published=False``), the configurations met along exploring
walks (error rate 0.1, steered by the exact oracle: treetool.oracles.dynamic.disagreement)
over three samples:

  random-np   N random non-projective trees of each size 5..9 (oracle_trees.random_nonprojective)
  random-p    N random projective trees of each size 5..9
  real-np     every non-projective sentence of 5..9 words in the dev files of
              Ancient Greek-PROIEL, Gothic-PROIEL and Turkish-IMST (../shared/data/ud-2.2)

and prints differing configurations / configurations. These are the rates
stated in the docstrings of oracles/dynamic.py and in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from oracle_trees import bf_projective, random_nonprojective, random_tree  # noqa: E402
from treetool.oracles import get_system  # noqa: E402
from treetool.oracles.dynamic import disagreement  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402

SHARED = ROOT.parent / "shared"
ORACLES = [
    ("arc-eager", "arc-eager", {}, {}),
    ("arc-hybrid", "arc-hybrid", {}, {}),
    ("nm-arc-eager L", "nm-arc-eager", {"variant": "L"}, {}),
    ("nm-arc-eager D", "nm-arc-eager", {"variant": "D"}, {}),
    ("nm-arc-eager D corrected", "nm-arc-eager", {"variant": "D"}, {"published": False}),
    ("nm-arc-eager LD", "nm-arc-eager", {"variant": "LD"}, {}),
]
REAL = [
    ("UD_Ancient_Greek-PROIEL", "grc_proiel-ud-dev.conllu"),
    ("UD_Gothic-PROIEL", "got_proiel-ud-dev.conllu"),
    ("UD_Turkish-IMST", "tr_imst-ud-dev.conllu"),
]


def real_nonprojective(max_words: int = 9) -> list[tuple[list[int], None]]:
    out = []
    for folder, name in REAL:
        path = SHARED / "data" / "ud-2.2" / folder / name
        if not path.exists():
            continue
        for sentence in read_treebank(str(path)):
            if 5 <= sentence.n_words <= max_words and not bf_projective(sentence.head_list):
                out.append((sentence.head_list, None))
    return out


def random_trees(count: int, projective: bool, rng: random.Random) -> list[tuple[tuple[int, ...], None]]:
    out = []
    for n in range(5, 10):
        for _ in range(count):
            if not projective:
                out.append((random_nonprojective(n, rng), None))
                continue
            tree = random_tree(n, rng)
            while not bf_projective(tree):
                tree = random_tree(n, rng)
            out.append((tree, None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=40, help="random trees per size (default 40)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    samples = {
        "random-np": random_trees(args.trees, False, random.Random(args.seed)),
        "random-p": random_trees(args.trees, True, random.Random(args.seed)),
        "real-np": real_nonprojective(),
    }
    print(f"{'oracle':26} {'sample':10} {'trees':>6} {'differ':>7} {'configs':>8} {'rate':>7}")
    for label, name, options, oracle_options in ORACLES:
        system = get_system(name, **options)
        for sample, trees in samples.items():
            rng = random.Random(args.seed)
            differ, total = disagreement(system, lambda h, l: system.dynamic_oracle(h, l, **oracle_options), trees, rng)
            rate = f"{100 * differ / total:.2f}%" if total else "n/a"
            print(f"{label:26} {sample:10} {len(trees):>6} {differ:>7} {total:>8} {rate:>7}", flush=True)


if __name__ == "__main__":
    main()
