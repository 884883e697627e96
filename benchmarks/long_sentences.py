"""Time and peak memory of `treetool projectivize` on one long sentence, against its length.

Two kinds of trees: ``chain``, a chain of words with one crossing arc (the
optimum re-attaches one word; the case of issue 7: "one 2,000-word tree
took 20-35 s and over 420 MB"), and ``random``, a random tree (each word
attached to a random earlier one in a random order: nearly every arc
crosses another, the optimum loses most of them, and the number of optimal
trees has thousands of digits). Each case runs the whole command in a fresh
process, with and without ``--count``, so the peak resident set size is
that case's; seconds are the command's wall-clock time, start-up included,
and its CPU time (less disturbed by other processes on a shared machine).
Goal: a 2,000-word tree in at most 10 s and 250 MB. With ``--repeat N``
each case runs N times and the fastest run is shown (peak: the largest).

    python benchmarks/long_sentences.py [--lengths 250 500 1000 2000] [--kinds chain random] [--repeat N]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chain_tree(n: int) -> list[int]:
    """0 -> 1 -> 3 -> 4 -> ... -> n, and word 2 attached to 4 (crossing 1 -> 3)."""
    return [-1, 0, 4, 1] + list(range(3, n))


def random_tree(n: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] * (n + 1)
    heads[order[0]] = 0
    for i in range(1, n):
        heads[order[i]] = order[rng.randrange(i)]
    return heads


def write_conllu(heads: list[int], path: Path) -> None:
    rows = ["# sent_id = long"]
    for i in range(1, len(heads)):
        rows.append(f"{i}\tw{i}\tw{i}\tX\tX\t_\t{heads[i]}\t{'root' if heads[i] == 0 else 'dep'}\t_\t_")
    path.write_text("\n".join(rows) + "\n\n", encoding="utf-8")


def run(args: list[str]) -> tuple[float, float, float]:
    """Run ``python -m treetool ARGS`` in a child; return (seconds, CPU seconds, peak RSS of the child in MB)."""
    code = (
        "import resource, runpy, sys; sys.argv = ['treetool', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('treetool', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, file=sys.stderr)"
    )
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    cpu, rss_kb = proc.stderr.strip().splitlines()[-1].split()
    return seconds, float(cpu), int(rss_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--kinds", nargs="+", choices=["chain", "random"], default=["chain", "random"])
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the fastest is shown")
    args = parser.parse_args()
    print(f"{'kind':<7} {'words':>6} {'--count':>7} {'seconds':>8} {'CPU s':>6} {'peak MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.conllu"
        for kind in args.kinds:
            for n in args.lengths:
                write_conllu(chain_tree(n) if kind == "chain" else random_tree(n), path)
                for count in (False, True):
                    extra = ["--count"] if count else []
                    runs = [
                        run(["projectivize", str(path), "-o", str(Path(tmp) / "out.conllu"), *extra])
                        for _ in range(args.repeat)
                    ]
                    seconds, cpu, _ = min(runs)
                    peak = max(r[2] for r in runs)
                    yes = "yes" if count else "no"
                    print(f"{kind:<7} {n:>6} {yes:>7} {seconds:>8.2f} {cpu:>6.2f} {peak:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
