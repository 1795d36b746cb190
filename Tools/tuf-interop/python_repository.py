"""Writes a TUF repository with python-tuf's metadata API (tuf==7.0.0), for PatchUpdater to read.

Usage: python_repository.py OUT_DIR

The repository uses what PatchEngine's own repositories use and more: consistent snapshots,
the three key types the specification names (root 2-of-3 mixing ed25519, ecdsa and RSA-PSS),
hashes and lengths for every metadata file, a channel delegation with path patterns and a
terminating flag, custom target metadata, a nested delegation and a second root version
(key rotation). OUT_DIR/metadata and OUT_DIR/targets are served as they are; OUT_DIR/1.root.json
is the root a client starts from; OUT_DIR/expected.json lists target paths and their contents.
"""

import json
import os
import sys
from datetime import UTC, datetime, timedelta

from securesystemslib.signer import CryptoSigner
from tuf.api.metadata import (
    DelegatedRole,
    Delegations,
    Metadata,
    MetaFile,
    Root,
    Snapshot,
    TargetFile,
    Targets,
    Timestamp,
)
from tuf.api.serialization.json import JSONSerializer


def main(out: str) -> None:
    os.makedirs(os.path.join(out, "metadata"), exist_ok=True)
    expires = datetime.now(UTC).replace(microsecond=0) + timedelta(days=7)

    root_signers = [
        CryptoSigner.generate_ed25519(),
        CryptoSigner.generate_ecdsa(),
        CryptoSigner.generate_rsa(),
    ]
    online = CryptoSigner.generate_ecdsa()
    targets_signer = CryptoSigner.generate_rsa()
    channel_signer = CryptoSigner.generate_ed25519()
    nested_signer = CryptoSigner.generate_ecdsa()

    root = Metadata(Root(expires=expires, consistent_snapshot=True))
    for signer in root_signers:
        root.signed.add_key(signer.public_key, Root.type)
    root.signed.roles[Root.type].threshold = 2
    root.signed.add_key(online.public_key, Timestamp.type)
    root.signed.add_key(online.public_key, Snapshot.type)
    root.signed.add_key(targets_signer.public_key, Targets.type)

    targets = Metadata(Targets(expires=expires))
    channel = Metadata(Targets(expires=expires))
    nested = Metadata(Targets(expires=expires))
    expected = {}

    def add(md: Metadata, path: str, data: bytes, custom: dict | None = None) -> None:
        target = TargetFile.from_data(path, data, ["sha256", "sha512"])
        if custom is not None:
            target.unrecognized_fields["custom"] = custom
        md.signed.targets[path] = target
        dirname, _, basename = path.rpartition("/")
        for digest in target.hashes.values():
            name = f"{dirname}/{digest}.{basename}" if dirname else f"{digest}.{basename}"
            os.makedirs(os.path.dirname(os.path.join(out, "targets", name)), exist_ok=True)
            with open(os.path.join(out, "targets", name), "wb") as f:
                f.write(data)
        expected[path] = data.decode()

    add(targets, "README.txt", b"top-level target\n")
    add(channel, "patches/fix-1.js", b"defineClass('A', {});\n",
        {"app": "com.example.shop", "rollout": 10000, "enabled": True})
    add(nested, "patches/nested/fix-2.js", b"defineClass('B', {});\n")

    targets.signed.delegations = Delegations(
        keys={channel_signer.public_key.keyid: channel_signer.public_key},
        roles={"production": DelegatedRole("production", [channel_signer.public_key.keyid], 1, True, ["patches/*", "patches/*/*"])},
    )
    channel.signed.delegations = Delegations(
        keys={nested_signer.public_key.keyid: nested_signer.public_key},
        roles={"nested": DelegatedRole("nested", [nested_signer.public_key.keyid], 1, False, ["patches/nested/*"])},
    )

    serializer = JSONSerializer(compact=False)

    def write(md: Metadata, name: str) -> bytes:
        data = md.to_bytes(serializer)
        with open(os.path.join(out, "metadata", name), "wb") as f:
            f.write(data)
        return data

    def sign(md: Metadata, *signers: CryptoSigner) -> None:
        md.signatures.clear()
        for signer in signers:
            md.sign(signer, append=True)

    def meta(data: bytes, version: int) -> MetaFile:
        return MetaFile.from_data(version, data, ["sha256"])

    sign(nested, nested_signer)
    nested_bytes = write(nested, "1.nested.json")
    sign(channel, channel_signer)
    channel_bytes = write(channel, "1.production.json")
    sign(targets, targets_signer)
    targets_bytes = write(targets, "1.targets.json")

    snapshot = Metadata(Snapshot(expires=expires))
    snapshot.signed.meta = {
        "targets.json": meta(targets_bytes, 1),
        "production.json": meta(channel_bytes, 1),
        "nested.json": meta(nested_bytes, 1),
    }
    sign(snapshot, online)
    snapshot_bytes = write(snapshot, "1.snapshot.json")

    timestamp = Metadata(Timestamp(expires=expires))
    timestamp.signed.snapshot_meta = meta(snapshot_bytes, 1)
    sign(timestamp, online)
    write(timestamp, "timestamp.json")

    sign(root, root_signers[0], root_signers[1])
    first_root = write(root, "1.root.json")
    with open(os.path.join(out, "1.root.json"), "wb") as f:
        f.write(first_root)

    # Root v2 rotates the ed25519 root key out (signed by 2 of the old and 2 of the new keys).
    new_root_signer = CryptoSigner.generate_ecdsa()
    root.signed.revoke_key(root_signers[0].public_key.keyid, Root.type)
    root.signed.add_key(new_root_signer.public_key, Root.type)
    root.signed.version = 2
    sign(root, root_signers[0], root_signers[1], new_root_signer)
    write(root, "2.root.json")

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
