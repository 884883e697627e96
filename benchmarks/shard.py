"""What ``--shard K/N`` costs: counting the lines and sentences before a shard's window.

    python benchmarks/shard.py [--copies 10] [--shards 8]

Inputs (in a temporary folder): English-EWT train (UD 2.2) and the PTB sample of ../shared, each repeated
``--copies`` times. For the last of ``--shards`` shards (the one with the most bytes before it) the table gives
the bytes scanned before its window, the time :func:`treetool.shard.find_window` takes (best of 3, CPU time of
this process) and the speed in MB/s.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from treetool.shard import Shard, find_window  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def repeated(folder: Path, name: str, sources: list[Path], copies: int) -> Path:
    """``sources`` concatenated ``copies`` times into ``folder/name``."""
    data = b"".join(path.read_bytes() for path in sources)
    target = folder / name
    with open(target, "wb") as out:
        for _ in range(copies):
            out.write(data if data.endswith(b"\n\n") or name.endswith(".mrg") else data + b"\n")
    return target


def best_time(path: Path, fmt: str, shard: Shard) -> tuple[float, int]:
    """(best CPU seconds of 3, bytes before the window) of finding the window of ``shard``."""
    times = []
    for _ in range(3):
        start = time.process_time()
        window = find_window(str(path), fmt, shard)
        times.append(time.process_time() - start)
    return min(times), window.start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--shards", type=int, default=8)
    args = parser.parse_args()
    ewt = DATA / "ud-2.2" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
    ptb = sorted((DATA / "ptb-sample").glob("*.mrg"))
    if not ewt.exists() or not ptb:
        sys.exit(f"{DATA} not found: put ../shared beside the clone")
    print(f"Machine, date: {platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}, {datetime.date.today()}.")
    print()
    print("| input | size MB | shard | MB before it | CPU s to find its window | MB/s |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fmt, sources in ((f"EWT train x{args.copies}", "conllu", [ewt]),
                                   (f"PTB sample x{args.copies}", "ptb", ptb)):
            path = repeated(Path(tmp), "input.mrg" if fmt == "ptb" else "input.conllu", sources, args.copies)
            shard = Shard(args.shards, args.shards)
            seconds, before = best_time(path, fmt, shard)
            size = path.stat().st_size / 1e6
            print(f"| {name} | {size:.0f} | {shard} | {before / 1e6:.0f} | {seconds:.2f} | "
                  f"{before / 1e6 / seconds:.0f} |")


if __name__ == "__main__":
    main()
