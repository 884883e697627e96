"""Benchmark: optimal projectivization (Nederhof 2019, §8.1) on UD 2.2 train sets.

Nederhof reports 0.342 ms per tree for projectivizing all UD 2.2 training
sets (Java, end to end). This script reads the train files found under
../shared/data/ud-2.2 (with the ``conllu`` library for now: multiword-token
ranges and empty nodes are skipped), then times projectivization of every
tree, projective ones included (they skip the DP), and prints per file:

* trees, non-projective trees (those the DP changes), reading time per tree;
* ``loop``: ``optimal_projectivize`` called tree by tree -- total seconds,
  ms per tree over all trees, ms per non-projective tree (timed alone);
* ``many``: ``optimal_projectivize_many`` on the whole file, ms per tree;
* the optimal arc accuracy (cf. Table 6).

Times are the best of ``--repeat`` runs. Usage::

    python benchmarks/projectivize_dp.py [--repeat 3] [--figure8] [FILES...]

``--figure8`` also prints the geometric mean of the number of optimal
projective trees per sentence-length bucket (cf. Nederhof's Figure 8).
"""

from __future__ import annotations

import argparse
import glob
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.projectivization.optimal import (
    count_optimal_projective_trees,
    optimal_projectivize,
    optimal_projectivize_many,
)

DEFAULT_GLOB = str(ROOT.parent / "shared" / "data" / "ud-2.2" / "*" / "*train.conllu")


def read_heads(path: str) -> list[np.ndarray]:
    import conllu

    with open(path, encoding="utf-8") as fh:
        return [
            np.array([-1] + [t["head"] for t in s if isinstance(t["id"], int)], dtype=np.int64)
            for s in conllu.parse_incr(fh)
        ]


def best_of(repeat: int, fn, *args) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def loop(trees):
    for h in trees:
        optimal_projectivize(h)


COLS = (
    f"{'file':27} {'trees':>6} {'nonproj':>7} {'read ms/t':>9} | {'loop s':>7} {'ms/tree':>8} "
    f"{'ms/nonproj':>10} | {'many ms/t':>9} | {'acc %':>6}"
)


def row(name, n, k, t_read, t_loop, t_np, t_many, acc) -> str:
    return (
        f"{name:27} {n:6d} {k:7d} {1e3 * t_read / n:9.3f} | {t_loop:7.3f} {1e3 * t_loop / n:8.4f} "
        f"{1e3 * t_np / max(k, 1):10.4f} | {1e3 * t_many / n:9.4f} | {acc:6.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help=f"CoNLL-U files (default: {DEFAULT_GLOB})")
    ap.add_argument("--repeat", type=int, default=3, help="best of N timing runs (default 3)")
    ap.add_argument("--figure8", action="store_true", help="mean #optimal trees by length")
    args = ap.parse_args(argv)
    files = args.files or sorted(glob.glob(DEFAULT_GLOB))
    if not files:
        print(f"no files match {DEFAULT_GLOB}", file=sys.stderr)
        return 1

    print(COLS)
    print("-" * len(COLS))
    tot: dict[str, float] = defaultdict(float)
    fig8: dict[int, list[float]] = defaultdict(list)
    for path in files:
        t0 = time.perf_counter()
        trees = read_heads(path)
        t_read = time.perf_counter() - t0
        outs = optimal_projectivize_many(trees)
        changed = [h for h, o in zip(trees, outs) if not np.array_equal(h, o)]
        words = sum(len(h) - 1 for h in trees)
        kept = sum(int((o[1:] == h[1:]).sum()) for h, o in zip(trees, outs))
        t_loop = best_of(args.repeat, loop, trees)
        t_np = best_of(args.repeat, loop, changed)
        t_many = best_of(args.repeat, optimal_projectivize_many, trees)
        n, k = len(trees), len(changed)
        print(row(Path(path).name, n, k, t_read, t_loop, t_np, t_many, 100 * kept / words))
        for key, val in zip(
            ("n", "k", "read", "loop", "np", "many", "words", "kept"),
            (n, k, t_read, t_loop, t_np, t_many, words, kept),
        ):
            tot[key] += val
        if args.figure8:
            for h in trees:  # projective trees count 1 (no DP)
                fig8[(len(h) - 1) // 10].append(math.log(count_optimal_projective_trees(h)))
    print("-" * len(COLS))
    n, k = int(tot["n"]), int(tot["k"])
    acc = 100 * tot["kept"] / tot["words"]
    print(row("total", n, k, tot["read"], tot["loop"], tot["np"], tot["many"], acc))
    print(
        f"\nNederhof (2019, §8.1): 0.342 ms/tree end to end. Here, averaged over all {n} trees: "
        f"loop {1e3 * tot['loop'] / n:.4f} ms/tree, many {1e3 * tot['many'] / n:.4f} ms/tree, "
        f"plus reading with the conllu library {1e3 * tot['read'] / n:.3f} ms/tree."
    )
    if args.figure8:
        print("\nFigure 8: geometric mean number of optimal projective trees by length")
        for b in sorted(fig8):
            gm = math.exp(float(np.mean(fig8[b])))
            print(f"  {10 * b:3d}-{10 * b + 9:<3d} {len(fig8[b]):6d} trees  {gm:14.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
