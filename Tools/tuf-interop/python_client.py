"""python-tuf's ngclient.Updater (tuf==7.0.0) against a repository `patchctl repo` published.

Usage: python_client.py BASE_URL ROOT_JSON EXPECTED_JSON WORK_DIR

Refreshes, downloads every expected target and compares its bytes, checks that revoked targets
are not found, and that the root rotation was followed.
"""

import json
import os
import sys

from tuf.ngclient import Updater


def main(base: str, root_path: str, expected_path: str, work: str) -> None:
    expected = json.load(open(expected_path))
    metadata_dir = os.path.join(work, "metadata")
    target_dir = os.path.join(work, "targets")
    os.makedirs(metadata_dir, exist_ok=True)
    os.makedirs(target_dir, exist_ok=True)
    with open(root_path, "rb") as f:
        root = f.read()
    updater = Updater(metadata_dir, f"{base}/metadata/", target_dir, f"{base}/targets/", bootstrap=root)
    updater.refresh()
    for path, content in sorted(expected["targets"].items()):
        info = updater.get_targetinfo(path)
        assert info is not None, f"{path}: not found by python-tuf"
        assert info.custom.get("patchengine", {}).get("app") == "com.example.shop", f"{path}: custom metadata lost"
        local = updater.download_target(info)
        with open(local, encoding="utf-8") as f:
            assert f.read() == content, f"{path}: wrong content"
    for path in expected["absent"]:
        assert updater.get_targetinfo(path) is None, f"{path}: revoked but still listed"
    with open(os.path.join(metadata_dir, "root.json")) as f:
        version = json.load(f)["signed"]["version"]
    assert version == expected["root_version"], f"root version {version}, expected {expected['root_version']}"
    print(f"python-tuf read patchctl's repository: {len(expected['targets'])} targets, "
          f"{len(expected['absent'])} revoked, root v{version}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
