#!/usr/bin/env python3
"""Independent check of the W3C WebAuthn L3 test vectors (l3_test_vectors.json)
with py_webauthn (PyPI `webauthn` 3.0.1).

Run: /work/main/.venv-test/bin/python Server/Tests/Fixtures/webauthn/check_l3_vectors.py [path.json]

For every vector the registration is verified with webauthn.verify_registration_response
and, when present, the authentication with webauthn.verify_authentication_response using the
credential public key and sign count from the registration result. One JSON line is printed
per vector; library errors are reported verbatim (nothing is hidden). Always exits 0.

Choices (stated so results can be judged):
  * supported_pub_key_algs = every COSE algorithm py_webauthn knows (its default is only
    EdDSA/ES256/RS256); algorithms it does not know (e.g. ES384 -35, Ed448 -53) fail as it reports.
  * The spec's attestation trust root (attestationRoot.pem, section
    "Attestation trust root certificate") is passed via pem_root_certs_bytes_by_fmt for
    the vector's attestation format when the vector carries an x5c chain.
"""
import base64
import json
import os
import sys

import webauthn
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import AttestationFormat

HERE = os.path.dirname(os.path.abspath(__file__))


def b64url(hex_value):
    return base64.urlsafe_b64encode(bytes.fromhex(hex_value)).rstrip(b"=").decode("ascii")


def err(exc):
    return "error: %s: %s" % (type(exc).__name__, exc)


def check(vector):
    result = {"name": vector["name"], "registration": None, "authentication": None}
    cred_id = b64url(vector["credentialId"])
    reg = vector["registration"]
    reg_credential = {
        "id": cred_id,
        "rawId": cred_id,
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(reg["clientDataJSON"]),
            "attestationObject": b64url(reg["attestationObject"]),
        },
    }
    roots = None
    if vector.get("attestationRoot"):
        roots = {AttestationFormat(vector["attestationFormat"]): [vector["attestationRoot"]["pem"].encode("ascii")]}
    verified = None
    try:
        verified = webauthn.verify_registration_response(
            credential=reg_credential,
            expected_challenge=bytes.fromhex(reg["challenge"]),
            expected_origin=vector["origin"],
            expected_rp_id=vector["rpId"],
            require_user_verification=False,
            supported_pub_key_algs=list(COSEAlgorithmIdentifier),
            pem_root_certs_bytes_by_fmt=roots,
        )
        result["registration"] = "ok"
    except Exception as exc:  # report the library's own error text
        result["registration"] = err(exc)

    auth = vector.get("authentication")
    if auth is not None:
        if verified is None:
            result["authentication"] = "error: not attempted, registration failed (no public key)"
        else:
            user_handle = auth.get("userHandle")
            auth_credential = {
                "id": cred_id,
                "rawId": cred_id,
                "type": "public-key",
                "response": {
                    "clientDataJSON": b64url(auth["clientDataJSON"]),
                    "authenticatorData": b64url(auth["authenticatorData"]),
                    "signature": b64url(auth["signature"]),
                    "userHandle": b64url(user_handle) if user_handle else None,
                },
            }
            try:
                webauthn.verify_authentication_response(
                    credential=auth_credential,
                    expected_challenge=bytes.fromhex(auth["challenge"]),
                    expected_rp_id=vector["rpId"],
                    expected_origin=vector["origin"],
                    credential_public_key=verified.credential_public_key,
                    credential_current_sign_count=verified.sign_count,
                    require_user_verification=False,
                )
                result["authentication"] = "ok"
            except Exception as exc:
                result["authentication"] = err(exc)
    return result


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "l3_test_vectors.json")
    with open(path) as f:
        data = json.load(f)
    for vector in data["vectors"]:
        try:
            line = check(vector)
        except Exception as exc:  # malformed fixture entry: still one line per vector
            line = {"name": vector.get("name"), "registration": err(exc), "authentication": None}
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
