"""Speed of reading and cleaning Penn Treebank brackets (trees/s), on ../shared/data/ptb-sample.

    python benchmarks/ptb.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treetool.formats.ptb import read_ptb, tree_to_line  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "ptb-sample"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is reported")
    args = parser.parse_args()
    files = sorted(SAMPLE.glob("*.mrg"))
    if not files:
        sys.exit(f"{SAMPLE} not found: put ../shared beside the clone")
    data = [path.read_text(encoding="utf-8").splitlines(keepends=True) for path in files]
    clean = dict(drop_traces=True, strip_functions=True, remove_wrapper=True)
    cases = [
        ("parse", {}, False),
        ("parse + clean (all three options)", clean, False),
        ("parse + clean + one line per tree", clean, True),
    ]
    print(f"{len(files)} files, best of {args.repeat}")
    print(f"{'case':<36} {'trees':>6} {'seconds':>8} {'trees/s':>9}")
    for name, options, write in cases:
        best = float("inf")
        count = 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            count = 0
            for lines in data:
                for tree in read_ptb(lines, **options):
                    if write:
                        tree_to_line(tree)
                    count += 1
            best = min(best, time.perf_counter() - start)
        print(f"{name:<36} {count:>6} {best:>8.3f} {count / best:>9.0f}")


if __name__ == "__main__":
    main()
