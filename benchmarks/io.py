"""Benchmark: CoNLL-U read + write round trip (a script that prints a table; not a test).

    python benchmarks/io.py [FILE] [--runs N] [--skip-conllu]

Default FILE: ../shared/data/ud-2.2/UD_English-EWT/en_ewt-ud-train.conllu.
Each row runs N times (default 3) and keeps the best time; the ratio column is
that time over the bare line loop's, measured in the same run (other
processes share the cores, so only ratios within one run compare).

Acceptance: the treetool round trip is >= 3x faster than conllu
parse_incr + serialize, and within 2x of the bare line loop.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This file is named io.py: keep its folder off the import path, put the project on it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from treetool.treebank import read_treebank  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"


def bare_lines(path: str, out: str) -> None:
    with open(path, encoding="utf-8", newline="") as f, open(out, "w", encoding="utf-8", newline="") as o:
        for line in f:
            o.write(line)


def bare_sentences(path: str, out: str) -> None:
    def sentences(f):
        block: list[str] = []
        for line in f:
            block.append(line)
            if not line.strip():
                yield block
                block = []
        if block:
            yield block

    with open(path, encoding="utf-8", newline="") as f, open(out, "w", encoding="utf-8", newline="") as o:
        for block in sentences(f):
            o.write("".join(block))


def conllu_roundtrip(path: str, out: str) -> None:
    import conllu

    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        for sentence in conllu.parse_incr(f):
            o.write(sentence.serialize())


def treetool_roundtrip(path: str, out: str) -> None:
    with open(out, "wb") as o:
        write = o.write
        for s in read_treebank(path):
            write(s.to_bytes())


def treetool_read(path: str, out: str) -> None:
    total = 0
    for s in read_treebank(path):
        total += len(s.heads)


def best_of(fn, path: str, out: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn(path, out)
        best = min(best, time.perf_counter() - start)
    return best


def count_words(path: str) -> int:
    return sum(len(s) for s in read_treebank(path))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", default=str(DEFAULT))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-conllu", action="store_true", help="leave out the (slow, ~8 s a run) conllu row")
    args = parser.parse_args()
    path = args.file
    if not os.path.exists(path):
        print(f"{path} not found (../shared beside the clone?)", file=sys.stderr)
        return 1
    words = count_words(path)
    rows = [
        ("bare line loop (read + write lines)", bare_lines),
        ("bare sentence generator", bare_sentences),
        ("treetool round trip (read + to_bytes)", treetool_roundtrip),
        ("treetool read only (+ .heads)", treetool_read),
    ]
    if not args.skip_conllu:
        rows.insert(2, ("conllu parse_incr + serialize", conllu_roundtrip))
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.conllu")
        for name, fn in rows:
            times[name] = best_of(fn, path, out, args.runs)
            if fn in (bare_lines, treetool_roundtrip) and Path(out).read_bytes() != Path(path).read_bytes():
                print(f"WARNING: {name} output differs from the input", file=sys.stderr)
    base = times["bare line loop (read + write lines)"]
    print(f"{path}: {words:,} words, {os.path.getsize(path):,} bytes, best of {args.runs}")
    print(f"{'':40s} {'seconds':>9s} {'words/s':>12s} {'x bare loop':>12s}")
    for name, _ in rows:
        t = times[name]
        print(f"{name:40s} {t:9.3f} {words / t:12,.0f} {t / base:12.2f}")
    rt = times["treetool round trip (read + to_bytes)"]
    ok_bare = rt <= 2 * base
    print()
    print(f"round trip / bare line loop = {rt / base:.2f} (target <= 2): {'OK' if ok_bare else 'MISSED'}")
    if "conllu parse_incr + serialize" in times:
        speedup = times["conllu parse_incr + serialize"] / rt
        print(f"conllu / round trip = {speedup:.1f}x faster (target >= 3): {'OK' if speedup >= 3 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
