"""Peak memory of streaming commands on 1x, 2x and 4x the same input: it must not grow.

Concatenates the UD 2.2 files in ../shared/data N times into a temporary file
and runs `treetool filter` and `treetool projectivize` on it in a child
process, printing the child's peak resident set size (the parent holds no
data, since a child's peak includes what it had before exec).

    python benchmarks/memory.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb(args: list[str]) -> tuple[float, float]:
    """Run ``python -m treetool ARGS`` and return (peak RSS of that child in MB, seconds)."""
    start = time.perf_counter()
    code = (
        "import resource, runpy, sys; sys.argv = ['treetool', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('treetool', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True)
    rss_kb = int(proc.stderr.strip().splitlines()[-1])
    return rss_kb / 1024, time.perf_counter() - start


def main() -> None:
    files = sorted((SHARED / "data" / "ud-2.2").glob("*/*.conllu"))
    if not files:
        sys.exit("../shared/data/ud-2.2 not found: put ../shared beside the clone")
    unit = sum(path.stat().st_size for path in files)
    print(f"input unit: {len(files)} files, {unit / 1e6:.0f} MB")
    print(f"{'command':<14} {'copies':>6} {'MB in':>7} {'peak RSS MB':>12} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for copies in (1, 2, 4):
            path = Path(tmp) / "input.conllu"
            with open(path, "wb") as out:
                for _ in range(copies):
                    for source in files:
                        with open(source, "rb") as f:
                            shutil.copyfileobj(f, out)
            for command in ("filter", "projectivize"):
                rss, seconds = peak_rss_mb([command, str(path), "-o", str(Path(tmp) / "out.conllu")])
                print(f"{command:<14} {copies:>6} {copies * unit / 1e6:>7.0f} {rss:>12.1f} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
