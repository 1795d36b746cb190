"""Times python-tuf's ngclient.Updater in its own process, as it measures itself.

Usage: python_timing.py BASE_URL ROOT_JSON TARGET RUNS WORK_DIR

Each run is a fresh device: an empty metadata folder with the root, then refresh(),
get_targetinfo(TARGET) and download_target(). Then a launch with nothing new: a new Updater
on the folder the last run left, refresh() alone (the same timestamp). Prints one JSON line:
the median milliseconds of each, and the target's length as a check.
"""

import json
import os
import shutil
import statistics
import sys
import time

from tuf.ngclient import Updater


def main(base: str, root_path: str, target: str, runs: int, work: str) -> None:
    with open(root_path, "rb") as f:
        root = f.read()
    fresh, launch = [], []
    length = None
    for run in range(runs):
        shutil.rmtree(work, ignore_errors=True)
        metadata_dir, target_dir = os.path.join(work, "metadata"), os.path.join(work, "targets")
        os.makedirs(metadata_dir)
        os.makedirs(target_dir)
        start = time.perf_counter()
        updater = Updater(metadata_dir, f"{base}/metadata/", target_dir, f"{base}/targets/", bootstrap=root)
        updater.refresh()
        info = updater.get_targetinfo(target)
        assert info is not None, f"{target} not found"
        path = updater.download_target(info)
        fresh.append((time.perf_counter() - start) * 1000)
        length = os.path.getsize(path)
        start = time.perf_counter()
        Updater(metadata_dir, f"{base}/metadata/", target_dir, f"{base}/targets/", bootstrap=root).refresh()
        launch.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"fresh_ms": statistics.median(fresh), "launch_ms": statistics.median(launch), "length": length}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
