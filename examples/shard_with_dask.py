"""Run one treetool command over N shards of a file on a Dask cluster, and put the outputs back together.

    python examples/shard_with_dask.py INPUT OUTPUT SHARDS [SCHEDULER] -- treetool-arguments...

Each task runs ``treetool ARGS INPUT --shard K/N -o OUTPUT.partK`` in its own
process on whichever worker Dask picks (the workers need treetool installed
and INPUT at the same path, e.g. on a shared file system); the parts are then
concatenated in shard order, which gives exactly the bytes of one run
(``--shard``: see the Sharding large corpora page). Without SCHEDULER a local
cluster of two worker processes is started.

Example::

    python examples/shard_with_dask.py train.conllu steps.jsonl 16 tcp://scheduler:8786 -- \\
        annotate --system arc-eager --policy explore --seed 1
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


def run_shard(args: list[str], source: str, output: str, index: int, count: int) -> str:
    """One shard's run (executed on a Dask worker); returns the part's path."""
    part = f"{output}.part{index}"
    subprocess.run([sys.executable, "-m", "treetool", *args, source, "--shard", f"{index}/{count}", "-o", part],
                   check=True)
    return part


def run(args: list[str], source: str, output: str, count: int, scheduler: str | None = None) -> None:
    """All shards on the cluster, then the parts concatenated into ``output`` (and removed)."""
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1) if scheduler is None else None
    with Client(scheduler or cluster) as client:
        futures = [client.submit(run_shard, args, source, output, k, count, pure=False) for k in range(1, count + 1)]
        parts = client.gather(futures)  # in shard order, whatever order they finished in
    if cluster is not None:
        cluster.close()
    with open(output, "wb") as out:
        for part in parts:
            with open(part, "rb") as piece:
                shutil.copyfileobj(piece, out)
            Path(part).unlink()


def main(argv: list[str]) -> None:
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    mine, args = argv[:split], argv[split + 1:]
    if len(mine) not in (3, 4):
        sys.exit(__doc__)
    run(args, mine[0], mine[1], int(mine[2]), mine[3] if len(mine) == 4 else None)


if __name__ == "__main__":
    main(sys.argv[1:])
