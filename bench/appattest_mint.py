#!/usr/bin/env python3
"""App Attest attestation objects for bench/app-attest.sh, made with the helpers of
Server/Tests/Fixtures/appattest/mint.py (Python `cryptography` + `cbor2`) under a test root made here.

  appattest_mint.py init DIR   writes DIR/root.pem (the server's --app-attest-roots) and DIR/ca.json (the
                               intermediate CA's key and certificate, which signs the credential certificates)
  appattest_mint.py mint DIR   reads lines "<device private key, 32 bytes hex> <clientDataHash hex> <environment>"
                               on stdin and answers each with one line: the attestation object (hex). The key ID is
                               SHA-256 of the key's public point, as on a device; team and bundle are mint.py's
                               (TESTTEAM42, org.example.tessera).

`tessera-bench app-attest` runs `mint` as a child process: the device keys are made and the assertions signed in
Swift; only the certificate chain needs Python.

Each object carries a receipt of a real attestation's size and bytes: the receipt of the first published sample in
Server/Tests/Fixtures/appattest/devicecheck-appattest-samples.json (3,705 bytes of Apple's PKCS #7, 70 % of that
object), so the server parses, stores and syncs what a phone sends, not a 13-byte stand-in.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Server", "Tests", "Fixtures", "appattest"))
import mint  # noqa: E402  (makes a root and intermediate at import: `init` writes those)

from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402


def real_receipt():
    """The receipt of the first published sample (Apple's bytes: the server keeps it, never reads it)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Server", "Tests", "Fixtures", "appattest",
                        "devicecheck-appattest-samples.json")
    with open(path) as f:
        sample = json.load(f)["samples"][0]
    return mint.cbor2.loads(bytes.fromhex(sample["attestationObject"]))["attStmt"]["receipt"]


RECEIPT = real_receipt()


class LoadedCA:
    """The intermediate CA as `init` wrote it (what mint.credential_certificate needs: key and name)."""

    def __init__(self, state):
        self.key = serialization.load_pem_private_key(state["key"].encode(), password=None)
        self.cert = x509.load_der_x509_certificate(bytes.fromhex(state["cert"]))
        self.name = self.cert.subject

    def der(self):
        return self.cert.public_bytes(serialization.Encoding.DER)


class KnownDevice(mint.Device):
    """A device whose key the bench made (mint.Device makes a fresh one)."""

    def __init__(self, scalar):
        self.key = ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1())
        self.point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = mint.sha256(self.point)
        self.cose = mint.cbor2.dumps({1: 2, 3: -7, -1: 1, -2: self.point[1:33], -3: self.point[33:65]}, canonical=True)


def init(directory):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "root.pem"), "wb") as f:
        f.write(mint.ROOT.cert.public_bytes(serialization.Encoding.PEM))
    key = mint.INTERMEDIATE.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    with open(os.path.join(directory, "ca.json"), "w") as f:
        json.dump({"key": key, "cert": mint.INTERMEDIATE.der().hex()}, f)


def attestation_object(ca, scalar, client_data_hash, environment):
    device = KnownDevice(scalar)
    data = mint.auth_data(mint.sha256(("%s.%s" % (mint.TEAM_ID, mint.BUNDLE_ID)).encode()), 0, mint.AAGUID[environment],
                          device.key_id, device.cose)
    nonce = mint.sha256(data + client_data_hash)
    leaf = mint.credential_certificate(device, nonce, issuer=ca).public_bytes(serialization.Encoding.DER)
    return mint.cbor2.dumps({"fmt": "apple-appattest", "attStmt": {"x5c": [leaf, ca.der()], "receipt": RECEIPT},
                             "authData": data})


def serve(directory):
    with open(os.path.join(directory, "ca.json")) as f:
        ca = LoadedCA(json.load(f))
    for line in sys.stdin:
        scalar, client_data_hash, environment = line.split()
        sys.stdout.write(attestation_object(ca, bytes.fromhex(scalar), bytes.fromhex(client_data_hash), environment).hex() + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("init", "mint"):
        sys.exit("usage: appattest_mint.py init|mint DIR")
    (init if sys.argv[1] == "init" else serve)(sys.argv[2])
