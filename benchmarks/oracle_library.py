"""Speed of the oracles library (no I/O in the timings), and Cohen et al. (2012) Table 1 on UD 2.2.

    python benchmarks/oracle_library.py [--section static|derive|table1|search|all] [--repeat N] [FILES...]

Default FILES: every ../shared/data/ud-2.2/*/*.conllu (about 1M words). The
sentences are read once (treetool.treebank.read_treebank, heads as lists,
labels as lists); each row then times one function over all of them, best
of N runs, and reports words per second. Target: well over 200k words/s for
every static oracle and derivability check, so that `treetool oracle` and
`treetool coverage` reach 200k words/s end to end.

Sections:
  static  each built-in system's static oracle, unlabelled and labelled
  derive  can_derive per system, min_degree (Attardi, max 4), swap counts
  table1  per *train* file: sentences, non-projective, derivable by Attardi
          degree 2, canonical-oracle failures, min-degree distribution
          (Cohen et al. 2012, Table 1 'this paper' column, Example 2 as specified)
  search  exhaustive search (treetool.oracles.search): ms per call on random trees
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treetool.oracles import derivable, get_system, min_degree, min_loss, search_oracle  # noqa: E402
from treetool.oracles.swap import swap_oracle  # noqa: E402
from treetool.treebank import read_treebank  # noqa: E402
from treetool.trees import is_projective  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
SYSTEMS = [
    ("arc-standard", {}),
    ("arc-hybrid", {}),
    ("arc-eager", {"reduce": "eager"}),
    ("arc-eager", {"reduce": "lazy"}),
    ("nm-arc-eager", {"variant": "LD"}),
    ("attardi", {"degree": 2}),
    ("attardi", {"degree": 3}),
    ("swap", {"order": "eager"}),
    ("swap", {"order": "lazy"}),
]


def load(files: list[Path]) -> dict[Path, list[tuple[list[int], list[str]]]]:
    return {path: [(s.head_list, s.deprels) for s in read_treebank(str(path))] for path in files}


def timed(function, corpus, repeat: int) -> float:
    """Best time of ``repeat`` runs of ``function(heads, labels)`` over every sentence."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for heads, labels in corpus:
            function(heads, labels)
        best = min(best, time.perf_counter() - start)
    return best


def row(name: str, words: int, seconds: float) -> None:
    print(f"{name:<50} {words / seconds:>12,.0f} words/s  {seconds:7.2f} s")


def section_static(corpus, words: int, repeat: int) -> None:
    print("\n## static oracles")
    for name, options in SYSTEMS:
        system = get_system(name, **options)
        row(f"{system.describe()}", words, timed(lambda h, l: system.static_oracle(h), corpus, repeat))
        row(f"{system.describe()} labelled", words, timed(system.static_oracle, corpus, repeat))


def section_derive(corpus, words: int, repeat: int) -> None:
    print("\n## derivability")
    for name, options in [("arc-standard", {}), ("arc-eager", {}), ("attardi", {"degree": 2}), ("swap", {})]:
        system = get_system(name, **options)
        row(f"{system.describe()} can_derive", words, timed(lambda h, l: system.can_derive(h), corpus, repeat))
    row("is_projective (treetool.trees)", words, timed(lambda h, l: is_projective(h), corpus, repeat))
    row("min_degree (max 4)", words, timed(lambda h, l: min_degree(h, 4), corpus, repeat))
    eager = sum(swap_oracle(h, None, "eager").count("SW") for h, _ in corpus)
    lazy = sum(swap_oracle(h, None, "lazy").count("SW") for h, _ in corpus)
    print(f"swaps over the corpus: eager {eager:,}, lazy {lazy:,}")


def section_table1(files: dict) -> None:
    print("\n## Cohen et al. (2012) Table 1 measure on UD 2.2 train files (Attardi, Example 2 as specified)")
    degree2 = get_system("attardi", degree=2)
    header = f"{'file':<28} {'sent':>6} {'non-proj':>8} {'deriv-2':>7} {'canon-fail-2':>12}   min degree 1 / 2 / 3 / 4 / none"
    print(header)
    for path, corpus in files.items():
        if "train" not in path.name:
            continue
        non_projective = sum(not is_projective(h) for h, _ in corpus)
        derivable2 = sum(degree2.can_derive(h) for h, _ in corpus)
        failures = sum(degree2.static_oracle(h) is None for h, _ in corpus)
        degrees = Counter(min_degree(h, 4) for h, _ in corpus)
        spread = " / ".join(f"{degrees.get(d, 0):,}" for d in (1, 2, 3, 4, None))
        print(f"{path.name:<28} {len(corpus):>6,} {non_projective:>8,} {derivable2:>7,} {failures:>12,}   {spread}")


def _random_tree(n: int, rng: random.Random) -> list[int]:
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads, placed = [-1] * (n + 1), [0]
    for w in order:
        heads[w] = rng.choice(placed)
        placed.append(w)
    return heads


def section_search() -> None:
    print("\n## exhaustive search, ms per call (mean over 10 random trees)")
    print(f"{'system':<32} {'n':>3} {'min_loss(initial)':>18} {'derivable':>10} {'search_oracle':>14}")
    rng = random.Random(0)
    for name, options in [
        ("arc-standard", {}),
        ("arc-hybrid", {}),
        ("arc-eager", {}),
        ("nm-arc-eager", {"variant": "LD"}),
        ("attardi", {"degree": 2}),
        ("swap", {}),
    ]:
        system = get_system(name, **options)
        for n in (7, 9) if name != "swap" else (5, 7):
            trees = [_random_tree(n, rng) for _ in range(10)]
            cells = []
            for function in (
                lambda t: min_loss(system, system.initial(n), t),
                lambda t: derivable(system, t),
                lambda t: search_oracle(system, t),
            ):
                start = time.perf_counter()
                for tree in trees:
                    function(tree)
                cells.append((time.perf_counter() - start) / len(trees) * 1000)
            print(f"{system.describe():<32} {n:>3} {cells[0]:>18.1f} {cells[1]:>10.1f} {cells[2]:>14.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--section", default="all", choices=["static", "derive", "table1", "search", "all"])
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best is reported")
    args = parser.parse_args()
    files = args.files or sorted((SHARED / "data" / "ud-2.2").glob("*/*.conllu"))
    if not files:
        sys.exit(f"no input files (is {SHARED} beside the project?)")
    wanted = {args.section} if args.section != "all" else {"static", "derive", "table1", "search"}
    if wanted & {"static", "derive", "table1"}:
        start = time.perf_counter()
        per_file = load(files)
        corpus = [s for sentences in per_file.values() for s in sentences]
        words = sum(len(h) - 1 for h, _ in corpus)
        seconds = time.perf_counter() - start
        print(f"{len(files)} files, {len(corpus):,} sentences, {words:,} words; read in {seconds:.1f} s")
        if "static" in wanted:
            section_static(corpus, words, args.repeat)
        if "derive" in wanted:
            section_derive(corpus, words, args.repeat)
        if "table1" in wanted:
            section_table1(per_file)
    if "search" in wanted:
        section_search()


if __name__ == "__main__":
    main()
