#!/usr/bin/env python3
"""Mint App Attest attestation objects and assertions (Apple's "Validating apps that connect to your
server") under a test root CA made here, and print ONE JSON document on stdout:

  {"time": <unix seconds to verify at>, "root": <DER hex>, "teamId", "bundleId", "fixtureDeviceKey" (the scalar of the
   Tessera device key every case's challenge is bound to, unless the case says otherwise),
   "cases": [{"name", "kind": "attestation" | "assertion", "environment", "teamId", "bundleId", ...}]}

Run: /work/main/.venv-test/bin/python Server/Tests/Fixtures/appattest/mint.py > cases.json

  * "environment", "teamId", "bundleId" are the CLIENT'S SETTINGS the case is verified under; the minted
    data may deliberately differ (negative cases). Every negative case has one thing wrong.
  * attestation cases: "attestationObject", "keyId", "challenge" (what the app sends and the server issued),
    "privateKey" (the device key's scalar, 32 bytes: the server's tests sign further assertions with it).
  * assertion cases: "assertion", "clientData", "publicKey" (the device key stored at attestation,
    uncompressed X9.62), "storedCounter".
  * Byte strings are lowercase hex. Keys, certificates and challenges are fresh each run; the case names
    and what each breaks are fixed. What each case must produce is written in the Swift test, not here.

The chain is shaped like Apple's: a P-384 root, a P-384 intermediate (CA, path length 0), and a P-256
credential certificate signed with ECDSA-SHA256 that carries the nonce in extension 1.2.840.113635.100.8.2
as SEQUENCE { [1] EXPLICIT OCTET STRING } (the encoding of Apple's own certificates: 30 24 a1 22 04 20 ...).
"""
import base64
import datetime
import hashlib
import json
import os

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

TEAM_ID = "TESTTEAM42"
BUNDLE_ID = "org.example.tessera"
OTHER_TEAM_ID = "OTHERTEAM9"
OTHER_BUNDLE_ID = "org.example.other"

AAGUID = {"development": b"appattestdevelop", "production": b"appattest" + bytes(7)}
NONCE_OID = x509.ObjectIdentifier("1.2.840.113635.100.8.2")

NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
DAY = datetime.timedelta(days=1)


def sha256(data):
    return hashlib.sha256(data).digest()


def der(tag, body):
    """One DER TLV (short or long length form)."""
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + body


def nonce_extension(nonce):
    """SEQUENCE { [1] EXPLICIT OCTET STRING nonce }."""
    return der(0x30, der(0xA1, der(0x04, nonce)))


def name(cn):
    return x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, cn),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tessera Test"),
        x509.NameAttribute(NameOID.STATE_OR_PROVINCE_NAME, "California"),
    ])


class CA:
    """A CA certificate and its key (self-signed when issuer is None)."""

    def __init__(self, cn, issuer=None, path_length=None):
        self.key = ec.generate_private_key(ec.SECP384R1())
        self.name = name(cn)
        signer = issuer or self
        builder = (x509.CertificateBuilder()
                   .subject_name(self.name).issuer_name(signer.name)
                   .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(NOW - 30 * DAY).not_valid_after(NOW + 3650 * DAY)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
                   .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False))
        if issuer is not None:
            builder = builder.add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
        self.cert = builder.sign(signer.key, hashes.SHA384())

    def der(self):
        return self.cert.public_bytes(serialization.Encoding.DER)


class Device:
    """A device's App Attest key pair (P-256), as the Secure Enclave holds it."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = sha256(self.point)
        self.cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: self.point[1:33], -3: self.point[33:65]}, canonical=True)

    def sign(self, data):
        """ECDSA P-256 with SHA-256 over data, DER."""
        return self.key.sign(data, ec.ECDSA(hashes.SHA256()))


ROOT = CA("Tessera Test App Attestation Root CA")
INTERMEDIATE = CA("Tessera Test App Attestation CA 1", issuer=ROOT, path_length=0)
OTHER_ROOT = CA("Another App Attestation Root CA")
OTHER_INTERMEDIATE = CA("Another App Attestation CA 1", issuer=OTHER_ROOT, path_length=0)
# The Tessera device key (P-256, not an App Attest key) of the server tests' device: every attestation case's
# challenge is bound to it (16 random bytes and the first 16 of SHA-256 of its X9.63 bytes), as the server issues them.
FIXTURE_DEVICE_KEY = ec.generate_private_key(ec.SECP256R1())


def credential_certificate(device, nonce, issuer=INTERMEDIATE, not_before=None, not_after=None, with_nonce=True):
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, device.key_id.hex()),
                                        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "AAA Certification"),
                                        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tessera Test")]))
               .issuer_name(issuer.name).public_key(device.key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before or NOW - DAY).not_valid_after(not_after or NOW + 2 * DAY)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(True, True, True, True, False, False, False, False, False), critical=True))
    if with_nonce:
        builder = builder.add_extension(x509.UnrecognizedExtension(NONCE_OID, nonce_extension(nonce)), critical=False)
    return builder.sign(issuer.key, hashes.SHA256())


def auth_data(rp_id_hash, counter, aaguid, credential_id, cose_key, flags=0x40):
    return (rp_id_hash + bytes([flags]) + counter.to_bytes(4, "big") + aaguid
            + len(credential_id).to_bytes(2, "big") + credential_id + cose_key)


def attestation(name, environment="development", settings_environment=None, team=TEAM_ID, bundle=BUNDLE_ID,
                counter=0, aaguid=None, credential_id=None, key_id=None, nonce_challenge=None, issuer=INTERMEDIATE,
                chain_extra=None, leaf_only=False, not_before=None, not_after=None, with_nonce=True, fmt="apple-appattest",
                device=None, raw=None, challenge=None):
    """One attestation case: a device attests under `environment`; the client's settings are
    `settings_environment` (default: the same), TEAM_ID and BUNDLE_ID."""
    device = device or Device()
    challenge = challenge if challenge is not None else os.urandom(16) + sha256(x963(FIXTURE_DEVICE_KEY))[:16]
    data = auth_data(sha256(("%s.%s" % (team, bundle)).encode()), counter, aaguid or AAGUID[environment],
                     credential_id if credential_id is not None else device.key_id, device.cose)
    nonce = sha256(data + sha256(nonce_challenge if nonce_challenge is not None else challenge))
    leaf = credential_certificate(device, nonce, issuer=issuer, not_before=not_before, not_after=not_after,
                                  with_nonce=with_nonce)
    leaf_der = leaf.public_bytes(serialization.Encoding.DER)
    chain = [leaf_der] if leaf_only else [leaf_der, (chain_extra or INTERMEDIATE).der()]
    obj = raw if raw is not None else cbor2.dumps(
        {"fmt": fmt, "attStmt": {"x5c": chain, "receipt": b"test receipt " + os.urandom(8)}, "authData": data})
    return {
        "name": name, "kind": "attestation", "environment": settings_environment or environment,
        "teamId": TEAM_ID, "bundleId": BUNDLE_ID, "attestationObject": obj.hex(),
        "keyId": (key_id if key_id is not None else device.key_id).hex(), "challenge": challenge.hex(),
        "expectedPublicKey": device.point.hex(),
        "privateKey": device.key.private_numbers().private_value.to_bytes(32, "big").hex(),
    }


def x963(key):
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def bound(name, bind_to_other=False, secret_prefix=None, **kwargs):
    """An attestation made at the enrolment of a Tessera device key (a P-256 key of the device's own, not the App
    Attest key): the challenge is 16 random bytes and the first 16 bytes of SHA-256 of the device key's X9.63
    bytes (with `bind_to_other`, of another key's). Adds "tesseraDeviceKey" (its scalar) and
    "tesseraDevicePublicKey" (X9.63). With `secret_prefix`, the first 16 bytes are those the app derives from the
    secret the enrolment uses up, SHA-256("tessera app-attest enrolment" || 0x00 || secret), for a secret
    prefix + base64url(32 random bytes) as the server makes them ("tdt_": a dispose token, "tss_": a session token);
    adds "enrolmentSecret"."""
    key = ec.generate_private_key(ec.SECP256R1())
    target = x963(ec.generate_private_key(ec.SECP256R1()) if bind_to_other else key)
    token = (secret_prefix or "") + base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    first = sha256(b"tessera app-attest enrolment\x00" + token.encode())[:16] if secret_prefix else os.urandom(16)
    case = attestation(name, challenge=first + sha256(target)[:16], **kwargs)
    case["tesseraDeviceKey"] = key.private_numbers().private_value.to_bytes(32, "big").hex()
    case["tesseraDevicePublicKey"] = x963(key).hex()
    if secret_prefix:
        case["enrolmentSecret"] = token
    return case


def assertion(name, device, stored, counter, team=TEAM_ID, bundle=BUNDLE_ID, signer=None, signed_client_data=None,
              raw_signature=False, body=None):
    """One assertion case: `device` is the attested device whose key is stored; `signer` signs (default:
    the same device)."""
    client_data = json.dumps({"challenge": os.urandom(16).hex(), "action": "sign-in"}).encode()
    data = sha256(("%s.%s" % (team, bundle)).encode()) + bytes([0x40]) + counter.to_bytes(4, "big")
    nonce = sha256(data + sha256(signed_client_data if signed_client_data is not None else client_data))
    signature = (signer or device).sign(nonce)
    if raw_signature:
        r, s = decode_dss_signature(signature)
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    # Apple's order of keys: signature, then authenticatorData.
    obj = body if body is not None else cbor2.dumps({"signature": signature, "authenticatorData": data})
    return {
        "name": name, "kind": "assertion", "environment": "development", "teamId": TEAM_ID, "bundleId": BUNDLE_ID,
        "assertion": obj.hex(), "clientData": client_data.hex(), "publicKey": device.point.hex(),
        "storedCounter": stored, "expectedCounter": counter,
    }


def cases():
    device, other = Device(), Device()
    other_key = Device()
    return [
        attestation("valid development attestation", device=device),
        attestation("valid production attestation", environment="production"),
        attestation("wrong chain: credential certificate from another CA",
                    issuer=OTHER_INTERMEDIATE, chain_extra=OTHER_INTERMEDIATE),
        attestation("wrong chain: intermediate left out", leaf_only=True),
        attestation("wrong chain: another CA's intermediate sent with our leaf", chain_extra=OTHER_INTERMEDIATE),
        attestation("expired credential certificate", not_before=NOW - 5 * DAY, not_after=NOW - 2 * DAY),
        attestation("credential certificate not yet valid", not_before=NOW + DAY, not_after=NOW + 3 * DAY),
        attestation("nonce mismatch: nonce of another challenge", nonce_challenge=os.urandom(32)),
        attestation("no nonce extension", with_nonce=False),
        attestation("key ID mismatch: another key's ID sent", key_id=other_key.key_id),
        attestation("credential ID is not the key ID", credential_id=other_key.key_id),
        attestation("rpIdHash of another team", team=OTHER_TEAM_ID),
        attestation("rpIdHash of another bundle", bundle=OTHER_BUNDLE_ID),
        attestation("counter not 0", counter=1),
        attestation("development AAGUID under a production client", environment="development",
                    settings_environment="production"),
        attestation("production AAGUID under a development client", environment="production",
                    settings_environment="development"),
        attestation("fmt is not apple-appattest", fmt="packed"),
        attestation("not CBOR", raw=b"\xa3\x63fmt"),
        bound("bound development attestation"),
        bound("bound development attestation, second device"),
        bound("bound production attestation", environment="production"),
        bound("bound to another device key", bind_to_other=True),
        bound("bound, wrong chain", issuer=OTHER_INTERMEDIATE, chain_extra=OTHER_INTERMEDIATE),
        bound("bound to a dispose token", secret_prefix="tdt_"),
        bound("bound to a session token", secret_prefix="tss_"),
        assertion("valid first assertion (counter 1 after 0)", device, stored=0, counter=1),
        assertion("valid later assertion (counter 7 after 4)", device, stored=4, counter=7),
        assertion("replayed assertion: counter not grown", device, stored=7, counter=7),
        assertion("counter went back", device, stored=7, counter=3),
        assertion("assertion from another device's key", device, stored=0, counter=1, signer=other),
        assertion("signature over other client data", device, stored=0, counter=1, signed_client_data=b"other request"),
        assertion("signature not DER (raw r and s)", device, stored=0, counter=1, raw_signature=True),
        assertion("assertion rpIdHash of another bundle", device, stored=0, counter=1, bundle=OTHER_BUNDLE_ID),
        assertion("assertion without a signature", device, stored=0, counter=1,
                  body=cbor2.dumps({"authenticatorData": bytes(37)})),
    ]


def main():
    print(json.dumps({
        "time": int(NOW.timestamp()), "root": ROOT.der().hex(), "otherRoot": OTHER_ROOT.der().hex(),
        "teamId": TEAM_ID, "bundleId": BUNDLE_ID,
        "fixtureDeviceKey": FIXTURE_DEVICE_KEY.private_numbers().private_value.to_bytes(32, "big").hex(), "cases": cases(),
    }))


if __name__ == "__main__":
    main()
