"""End-to-end speed of `treetool oracle` and `treetool coverage` over all of UD 2.2, in words per second.

Target (issue 8): at least 200,000 words/s for each command over all of
../shared/data/ud-2.2 (about 1,000,000 words), measured as a user runs it:
one `python -m treetool` process per command and system, output to /dev/null,
start-up included. Prints one row per command and system, best of --repeat runs.

    python benchmarks/oracle.py [--repeat N] [--systems arc-standard attardi ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TARGET = 200_000
SYSTEMS = {
    "arc-standard": [], "arc-hybrid": [], "arc-eager": [], "nm-arc-eager": [],
    "attardi": ["--degree", "2"], "swap": [], "swap-lazy": ["--order", "lazy"],
}


def treetool(*args: str) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "treetool", *args], cwd=ROOT, capture_output=True, check=True)
    return time.perf_counter() - start, done.stdout


def system_args(key: str) -> list[str]:
    return ["--system", key.split("-lazy")[0], *SYSTEMS[key]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS), choices=list(SYSTEMS))
    args = parser.parse_args()
    files = sorted(str(p) for p in (SHARED / "data" / "ud-2.2").glob("*/*.conllu"))
    if not files:
        sys.exit(f"no files under {SHARED / 'data' / 'ud-2.2'}")
    _, report = treetool("coverage", *files, "--system", "arc-standard", "--format", "json")
    words = json.loads(report)["total"]["words"]
    print(f"{len(files)} files, {words:,} words; target {TARGET:,} words/s\n")
    print(f"{'command':<10} {'system':<14} {'seconds':>8} {'words/s':>10}  target")
    for key in args.systems:
        for command, extra in (("oracle", ["-o", "/dev/null"]), ("coverage", ["--format", "json"])):
            seconds = min(treetool(command, *files, *system_args(key), *extra)[0] for _ in range(args.repeat))
            rate = words / seconds
            print(f"{command:<10} {key:<14} {seconds:8.2f} {rate:10,.0f}  {'met' if rate >= TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
