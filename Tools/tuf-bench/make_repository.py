"""Writes a TUF repository whose channel role lists N targets, for the delivery benchmark.

Usage: make_repository.py OUT_DIR N

Shaped like a PatchEngine release repository: one root key (ed25519), an online key for
timestamp and snapshot, a targets key delegating `patches/*` to a terminating channel role
("production", ed25519) that lists N scripts `patches/fix-<i>.js` with custom metadata like a
release's, consistent snapshots, SHA-256 hashes and lengths everywhere. Only the target the
benchmark downloads (`patches/fix-<N-1>.js`) is written under targets/; the rest are listed.
OUT_DIR/root.json is the root a client starts from; OUT_DIR/target.txt names the target.
"""

import os
import sys
from datetime import UTC, datetime, timedelta

from securesystemslib.signer import CryptoSigner
from tuf.api.metadata import DelegatedRole, Delegations, Metadata, MetaFile, Root, Snapshot, TargetFile, Targets, Timestamp
from tuf.api.serialization.json import JSONSerializer


def main(out: str, count: int) -> None:
    os.makedirs(os.path.join(out, "metadata"), exist_ok=True)
    expires = datetime.now(UTC).replace(microsecond=0) + timedelta(days=7)
    root_signer, online, targets_signer, channel_signer = (CryptoSigner.generate_ed25519() for _ in range(4))

    root = Metadata(Root(expires=expires, consistent_snapshot=True))
    root.signed.add_key(root_signer.public_key, Root.type)
    root.signed.add_key(online.public_key, Timestamp.type)
    root.signed.add_key(online.public_key, Snapshot.type)
    root.signed.add_key(targets_signer.public_key, Targets.type)

    targets = Metadata(Targets(expires=expires))
    targets.signed.delegations = Delegations(
        keys={channel_signer.public_key.keyid: channel_signer.public_key},
        roles={"production": DelegatedRole("production", [channel_signer.public_key.keyid], 1, True, ["patches/*"])},
    )
    channel = Metadata(Targets(expires=expires))
    wanted = f"patches/fix-{count - 1}.js"
    for i in range(count):
        path = f"patches/fix-{i}.js"
        data = f"defineClass('Fix{i}', {{ total: function () {{ return {i}; }} }});\n".encode()
        target = TargetFile.from_data(path, data, ["sha256"])
        target.unrecognized_fields["custom"] = {"patchengine": {
            "app": "com.example.shop", "app_versions": ">=1.0.0 <2.0.0", "rollout": 10000, "enabled": True}}
        channel.signed.targets[path] = target
        if path == wanted:
            name = os.path.join(out, "targets", "patches", f"{target.hashes['sha256']}.fix-{i}.js")
            os.makedirs(os.path.dirname(name), exist_ok=True)
            with open(name, "wb") as f:
                f.write(data)

    serializer = JSONSerializer(compact=True)

    def publish(md: Metadata, signer: CryptoSigner, name: str) -> bytes:
        md.sign(signer)
        data = md.to_bytes(serializer)
        with open(os.path.join(out, "metadata", name), "wb") as f:
            f.write(data)
        return data

    channel_bytes = publish(channel, channel_signer, "1.production.json")
    targets_bytes = publish(targets, targets_signer, "1.targets.json")
    snapshot = Metadata(Snapshot(expires=expires))
    snapshot.signed.meta = {
        "targets.json": MetaFile.from_data(1, targets_bytes, ["sha256"]),
        "production.json": MetaFile.from_data(1, channel_bytes, ["sha256"]),
    }
    snapshot_bytes = publish(snapshot, online, "1.snapshot.json")
    timestamp = Metadata(Timestamp(expires=expires))
    timestamp.signed.snapshot_meta = MetaFile.from_data(1, snapshot_bytes, ["sha256"])
    publish(timestamp, online, "timestamp.json")
    root_bytes = publish(root, root_signer, "1.root.json")
    with open(os.path.join(out, "root.json"), "wb") as f:
        f.write(root_bytes)
    with open(os.path.join(out, "target.txt"), "w") as f:
        f.write(wanted)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
