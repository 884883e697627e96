"""End-to-end speed of `treetool projectivize` (read, projectivize, write), in ms per tree.

Target (issue 3): the Java implementation of Nederhof (2019) projectivized all
UD 2.2 training sets at 0.342 ms per tree; we measure all trees (projective
ones included) of ../shared/data/ud-2.2/*/*train.conllu.

    python benchmarks/projectivize.py [--method optimal|pseudo] [--repeat N] [FILES...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treetool.projectivization.driver import ProjectivizeOptions, Projectivizer  # noqa: E402
from treetool.treebank import TreebankWriter, read_treebank  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
TARGET_MS = 0.342


def run_file(path: Path, projectivizer: Projectivizer) -> tuple[int, int, float]:
    stats = projectivizer.new_stats(str(path))
    start = time.perf_counter()
    with TreebankWriter(os.devnull, "conllu") as writer:
        for sentence in projectivizer.run(read_treebank(str(path)), stats):
            writer.write(sentence)
    return stats.sentences, stats.non_projective_sentences, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--method", default="optimal", choices=["optimal", "pseudo"])
    parser.add_argument("--repeat", type=int, default=3, help="runs per file; the best is reported")
    args = parser.parse_args()
    files = args.files or sorted((SHARED / "data" / "ud-2.2").glob("*/*train.conllu"))
    if not files:
        sys.exit("no input files: pass some, or put ../shared beside the clone")
    projectivizer = Projectivizer(ProjectivizeOptions(method=args.method))
    print(f"method={args.method}, best of {args.repeat} runs, output to {os.devnull}")
    print(f"{'file':<32} {'trees':>7} {'non-proj':>8} {'seconds':>8} {'ms/tree':>8}")
    total_trees = total_np = 0
    total_time = 0.0
    for path in files:
        best = None
        for _ in range(args.repeat):
            trees, nonproj, seconds = run_file(path, projectivizer)
            best = seconds if best is None else min(best, seconds)
        total_trees += trees
        total_np += nonproj
        total_time += best
        print(f"{path.name:<32} {trees:>7} {nonproj:>8} {best:>8.3f} {1000 * best / trees:>8.4f}")
    print(f"{'all':<32} {total_trees:>7} {total_np:>8} {total_time:>8.3f} {1000 * total_time / total_trees:>8.4f}")
    print(f"target: {TARGET_MS} ms/tree (Nederhof 2019, Java, all UD 2.2 training sets)")


if __name__ == "__main__":
    main()
