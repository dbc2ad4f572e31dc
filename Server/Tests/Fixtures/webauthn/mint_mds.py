#!/usr/bin/env python3
"""Mints FIDO Metadata Service (MDS3) BLOBs for the tests: a test "FIDO root" and a signing certificate of its
own (RS256, as the real service signs), entries for the AAGUIDs given (one FIDO_CERTIFIED_L1 whose attestation
root is the W3C WebAuthn §16 vectors' CA, one REVOKED), and variants that must be refused (a payload changed
after signing, a chain to another root). For each BLOB it records what PyPI fido2's parse_blob (an independent
MDS3 reader) says. Prints one JSON object.

Usage: mint_mds.py <certified aaguid hex> <revoked aaguid hex> <attestation root DER hex>"""
import base64
import datetime
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
from fido2.mds3 import parse_blob

certified, revoked, attestation_root = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
now = datetime.datetime.now(datetime.timezone.utc)


def name(common):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tessera tests")])


def certificate(subject, key, issuer, issuer_key, ca):
    builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer)).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
               .not_valid_after(now + datetime.timedelta(days=20 * 365))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    return builder.sign(issuer_key, hashes.SHA256())


def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


root_key, other_key, leaf_key = rsa_key(), rsa_key(), rsa_key()
root = certificate("Test FIDO Root", root_key, "Test FIDO Root", root_key, True)
other = certificate("Another Root", other_key, "Another Root", other_key, True)
leaf = certificate("Test MDS Signer", leaf_key, "Test FIDO Root", root_key, False)
stranger = certificate("Test MDS Signer", leaf_key, "Another Root", other_key, False)


def dashed(hexdigits):
    return "-".join([hexdigits[0:8], hexdigits[8:12], hexdigits[12:16], hexdigits[16:20], hexdigits[20:32]])


def statement(aaguid, description, roots):
    return {
        "legalHeader": "test", "aaguid": dashed(aaguid), "description": description, "authenticatorVersion": 1,
        "protocolFamily": "fido2", "schema": 3, "upv": [{"major": 1, "minor": 0}], "authenticationAlgorithms": ["secp256r1_ecdsa_sha256_raw"],
        "publicKeyAlgAndEncodings": ["cose"], "attestationTypes": ["basic_full"],
        "userVerificationDetails": [[{"userVerificationMethod": "presence_internal"}]], "keyProtection": ["hardware"],
        "matcherProtection": ["on_chip"], "attachmentHint": ["external"], "tcDisplay": [],
        "attestationRootCertificates": [base64.b64encode(r).decode() for r in roots],
    }


def entry(aaguid, description, status, roots):
    return {
        "aaguid": dashed(aaguid), "metadataStatement": statement(aaguid, description, roots),
        "statusReports": [{"status": "FIDO_CERTIFIED", "effectiveDate": "2024-01-01"}, {"status": status, "effectiveDate": "2025-01-01"}],
        "timeOfLastStatusChange": "2025-01-01",
    }


payload = {
    "legalHeader": "test", "no": 42, "nextUpdate": (now + datetime.timedelta(days=30)).strftime("%Y-%m-%d"),
    "entries": [
        entry(certified, "Test Key Certified", "FIDO_CERTIFIED_L1", [attestation_root]),
        entry(revoked, "Test Key Revoked", "REVOKED", [attestation_root]),
    ],
}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jws(chain, body):
    header = {"alg": "RS256", "typ": "JWT", "x5c": [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in chain]}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(body).encode())
    signature = leaf_key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(signature)


good = jws([leaf], payload)
header_part, body_part, signature_part = good.split(".")
changed = dict(payload, no=43)
tampered = header_part + "." + b64url(json.dumps(changed).encode()) + "." + signature_part
foreign = jws([stranger], payload)
root_der = root.public_bytes(serialization.Encoding.DER)


def fido2_says(blob):
    try:
        parsed = parse_blob(blob.encode(), root_der)
        return "ok:%d:%d" % (parsed.no, len(parsed.entries))
    except Exception as error:  # any refusal
        return "refused:" + type(error).__name__


print(json.dumps({
    "root": root_der.hex(),
    "blobs": {name: {"jwt": blob, "fido2": fido2_says(blob)} for name, blob in [("good", good), ("tampered", tampered), ("foreign", foreign)]},
}))
