#!/usr/bin/env python3
"""Mint WebAuthn (W3C Level 3) registration and authentication responses with a software
authenticator defined in this file, verify each with py_webauthn (PyPI `webauthn` 3.0.1), and
print ONE JSON document on stdout:

  {"cases": [{"name", "ceremony", "rpId", "origin", "challenge", "requireUV", "roots",
              "registration" | "authentication", "py_webauthn"}, ...]}

Run: /work/main/.venv-test/bin/python Server/Tests/Fixtures/webauthn/mint_cases.py > cases.json

Conventions:
  * "rpId", "origin", "challenge", "requireUV", "roots" describe what the RELYING PARTY expects.
    The minted response may deliberately differ (negative cases).
  * All byte strings are lowercase hex. Keys and challenges are fresh each run; the list of
    cases, their names and their structure are fixed.
  * "roots": null = no attestation trust required; a list = the attestation must chain to one
    of these DER certificates.
  * "py_webauthn" is "ok" or "error: <ExceptionType>: <message>" (py_webauthn's verdict,
    recorded as is, whatever it is).
  * CBOR is encoded with cbor2.dumps(obj, canonical=True) (CTAP2 canonical ordering).
Always exits 0.
"""
import base64
import datetime
import hashlib
import json
import os
import sys

import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import NameOID

import webauthn
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import AttestationFormat

RP_ID = "example.org"
ORIGIN = "https://example.org"
OTHER_RP_ID = "attacker.example"
OTHER_ORIGIN = "https://attacker.example"

UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80

AAGUID = bytes.fromhex("7e55e7a1c0de4b1d8a2f000000000001")  # "Tessera Test Authenticator"
ZERO_AAGUID = bytes(16)
AAGUID_EXT_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")

SUPPORTED_ALGS = [
    COSEAlgorithmIdentifier.ECDSA_SHA_256,
    COSEAlgorithmIdentifier.EDDSA,
    COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256,
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def cbor(obj):
    return cbor2.dumps(obj, canonical=True)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sha256(data):
    return hashlib.sha256(data).digest()


def err(exc):
    return "error: %s: %s" % (type(exc).__name__, exc)


def client_data(ctype, challenge, origin, extra=None):
    """Compact clientDataJSON; members in the order type, challenge, origin, crossOrigin[, extra]."""
    doc = '{"type":%s,"challenge":%s,"origin":%s,"crossOrigin":false' % (
        json.dumps(ctype), json.dumps(b64url(challenge)), json.dumps(origin))
    if extra is not None:
        doc += ',"extra":%s' % json.dumps(extra)
    return (doc + "}").encode("utf-8")


def int_bytes(n):
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


# ---------------------------------------------------------------------------------------------
# credential key pairs (software authenticator)
# ---------------------------------------------------------------------------------------------

class CredKey:
    """A credential key pair with its COSE_Key encoding and a sign() for WebAuthn signatures."""

    def __init__(self, alg):
        self.alg = alg
        if alg == "ES256":
            self.priv = ec.generate_private_key(ec.SECP256R1())
            nums = self.priv.public_key().public_numbers()
            self.x, self.y = nums.x.to_bytes(32, "big"), nums.y.to_bytes(32, "big")
            self.cose = cbor({1: 2, 3: -7, -1: 1, -2: self.x, -3: self.y})
        elif alg == "ES384":
            self.priv = ec.generate_private_key(ec.SECP384R1())
            nums = self.priv.public_key().public_numbers()
            self.x, self.y = nums.x.to_bytes(48, "big"), nums.y.to_bytes(48, "big")
            self.cose = cbor({1: 2, 3: -35, -1: 2, -2: self.x, -3: self.y})
        elif alg == "EdDSA":
            self.priv = ed25519.Ed25519PrivateKey.generate()
            raw = self.priv.public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            self.cose = cbor({1: 1, 3: -8, -1: 6, -2: raw})
        elif alg == "RS256":
            self.priv = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            nums = self.priv.public_key().public_numbers()
            self.cose = cbor({1: 3, 3: -257, -1: nums.n.to_bytes(256, "big"), -2: int_bytes(nums.e)})
        else:
            raise ValueError(alg)

    @property
    def cose_alg(self):
        return {"ES256": -7, "ES384": -35, "EdDSA": -8, "RS256": -257}[self.alg]

    def sign(self, data):
        return sign_with(self.priv, data)


def sign_with(priv, data):
    if isinstance(priv, ec.EllipticCurvePrivateKey):
        h = hashes.SHA384() if isinstance(priv.curve, ec.SECP384R1) else hashes.SHA256()
        return priv.sign(data, ec.ECDSA(h))  # DER
    if isinstance(priv, ed25519.Ed25519PrivateKey):
        return priv.sign(data)  # raw 64 bytes
    if isinstance(priv, rsa.RSAPrivateKey):
        return priv.sign(data, padding.PKCS1v15(), hashes.SHA256())
    raise TypeError(priv)


def cose_alg_of(priv):
    if isinstance(priv, ec.EllipticCurvePrivateKey):
        return -7
    if isinstance(priv, ed25519.Ed25519PrivateKey):
        return -8
    return -257


# ---------------------------------------------------------------------------------------------
# attestation PKI
# ---------------------------------------------------------------------------------------------

NOT_BEFORE = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
NOT_AFTER = datetime.datetime(2099, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)


def name(*pairs):
    return x509.Name([x509.NameAttribute(oid, value) for oid, value in pairs])


def make_cert(subject, subject_key, issuer, issuer_key, ca, path_len=None, aaguid=None):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(subject_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=path_len if ca else None),
                       critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()),
                       critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                       critical=False)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=False, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          key_cert_sign=True, crl_sign=True, encipher_only=False,
                          decipher_only=False),
            critical=True)
    if aaguid is not None:
        # id-fido-gen-ce-aaguid: extnValue holds a DER OCTET STRING of the 16-byte AAGUID
        builder = builder.add_extension(
            x509.UnrecognizedExtension(AAGUID_EXT_OID, b"\x04\x10" + aaguid), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


class PKI:
    def __init__(self):
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        root_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Tessera Test"),
                         (NameOID.COMMON_NAME, "Tessera Test Attestation Root CA"))
        self.root = make_cert(root_name, self.root_key, root_name, self.root_key, ca=True)

        self.inter_key = ec.generate_private_key(ec.SECP256R1())
        inter_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Tessera Test"),
                          (NameOID.COMMON_NAME, "Tessera Test Attestation Intermediate CA"))
        self.inter = make_cert(inter_name, self.inter_key, root_name, self.root_key, ca=True,
                               path_len=0)
        self.inter_name = inter_name
        self.root_name = root_name

        leaf_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Tessera Test"),
                         (NameOID.ORGANIZATIONAL_UNIT_NAME, "Authenticator Attestation"),
                         (NameOID.COMMON_NAME, "Tessera Test Authenticator"))
        self.leaf_es256_key = ec.generate_private_key(ec.SECP256R1())
        self.leaf_es256 = make_cert(leaf_name, self.leaf_es256_key, inter_name, self.inter_key,
                                    ca=False, aaguid=AAGUID)
        self.leaf_rs256_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.leaf_rs256 = make_cert(leaf_name, self.leaf_rs256_key, inter_name, self.inter_key,
                                    ca=False, aaguid=AAGUID)

        # fido-u2f leaf: P-256, signed directly by the root, no AAGUID extension
        u2f_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Tessera Test"),
                        (NameOID.ORGANIZATIONAL_UNIT_NAME, "Authenticator Attestation"),
                        (NameOID.COMMON_NAME, "Tessera Test U2F Authenticator"))
        self.u2f_key = ec.generate_private_key(ec.SECP256R1())
        self.u2f_leaf = make_cert(u2f_name, self.u2f_key, root_name, self.root_key, ca=False)

        # an unrelated root (same subject style, different key) for the untrusted-chain case
        other_key = ec.generate_private_key(ec.SECP256R1())
        other_name = name((NameOID.COUNTRY_NAME, "US"), (NameOID.ORGANIZATION_NAME, "Unrelated Test"),
                          (NameOID.COMMON_NAME, "Unrelated Test Root CA"))
        self.other_root = make_cert(other_name, other_key, other_name, other_key, ca=True)


# ---------------------------------------------------------------------------------------------
# software authenticator
# ---------------------------------------------------------------------------------------------

def auth_data(rp_id, flags, sign_count, attested=None):
    """attested = (aaguid, cred_id, cose_key) or None"""
    out = sha256(rp_id.encode("utf-8")) + bytes([flags]) + sign_count.to_bytes(4, "big")
    if attested is not None:
        aaguid, cred_id, cose_key = attested
        out += aaguid + len(cred_id).to_bytes(2, "big") + cred_id + cose_key
    return out


def make_registration(pki, *, fmt, cred, rp_id=RP_ID, origin=ORIGIN, ctype="webauthn.create",
                      flags=UP | UV | AT, sign_count=0, cred_id=None, x5c_leaf=None,
                      extra=None, tamper=None):
    """Return (credential_id, clientDataJSON, attestationObject, challenge).

    fmt: "none" | "packed-self" | "packed-x5c" | "fido-u2f"
    x5c_leaf: "ES256" | "RS256" for packed-x5c
    tamper: None | "clientData" (extra "aaaa"->"aaab" after signing)
                 | "authData-signCount" (flip low signCount byte after signing)
    """
    challenge = os.urandom(32)
    cred_id = cred_id if cred_id is not None else os.urandom(32)
    aaguid = ZERO_AAGUID if fmt in ("none", "fido-u2f") else AAGUID
    if fmt == "packed-self":
        aaguid = AAGUID
    cdj = client_data(ctype, challenge, origin, extra)
    ad = auth_data(rp_id, flags, sign_count, (aaguid, cred_id, cred.cose))
    cd_hash = sha256(cdj)

    if fmt == "none":
        stmt, fmt_name = {}, "none"
    elif fmt == "packed-self":
        stmt, fmt_name = {"alg": cred.cose_alg, "sig": cred.sign(ad + cd_hash)}, "packed"
    elif fmt == "packed-x5c":
        leaf, key = ((pki.leaf_es256, pki.leaf_es256_key) if x5c_leaf == "ES256"
                     else (pki.leaf_rs256, pki.leaf_rs256_key))
        stmt = {"alg": cose_alg_of(key), "sig": sign_with(key, ad + cd_hash),
                "x5c": [der(leaf), der(pki.inter)]}
        fmt_name = "packed"
    elif fmt == "fido-u2f":
        base = b"\x00" + sha256(rp_id.encode("utf-8")) + cd_hash + cred_id + b"\x04" + cred.x + cred.y
        stmt = {"sig": sign_with(pki.u2f_key, base), "x5c": [der(pki.u2f_leaf)]}
        fmt_name = "fido-u2f"
    else:
        raise ValueError(fmt)

    if tamper == "clientData":
        assert b'"extra":"aaaa"' in cdj
        cdj = cdj.replace(b'"extra":"aaaa"', b'"extra":"aaab"')
    elif tamper == "authData-signCount":
        ad = bytearray(ad)
        ad[36] ^= 0x01  # last byte of signCount
        ad = bytes(ad)

    att_obj = cbor({"fmt": fmt_name, "attStmt": stmt, "authData": ad})
    return cred_id, cdj, att_obj, challenge


def make_assertion(cred, cred_id, *, rp_id=RP_ID, origin=ORIGIN, flags=UP | UV, sign_count=5,
                   user_handle=None, extra=None, tamper=None):
    """Return (clientDataJSON, authenticatorData, signature, challenge).

    tamper: None | "clientData" (extra "aaaa"->"aaab" after signing)
                 | "authData" (flip a bit of the top signCount byte after signing, which makes the
                   counter larger so only the signature is wrong)
    """
    challenge = os.urandom(32)
    cdj = client_data("webauthn.get", challenge, origin, extra)
    ad = auth_data(rp_id, flags, sign_count)
    sig = cred.sign(ad + sha256(cdj))
    if tamper == "clientData":
        assert b'"extra":"aaaa"' in cdj
        cdj = cdj.replace(b'"extra":"aaaa"', b'"extra":"aaab"')
    elif tamper == "authData":
        ad = bytearray(ad)
        ad[33] ^= 0x01
        ad = bytes(ad)
    return cdj, ad, sig, challenge


# ---------------------------------------------------------------------------------------------
# py_webauthn
# ---------------------------------------------------------------------------------------------

def py_verify_registration(case, cred_id):
    reg = case["registration"]
    credential = {
        "id": b64url(cred_id),
        "rawId": b64url(cred_id),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(bytes.fromhex(reg["clientDataJSON"])),
            "attestationObject": b64url(bytes.fromhex(reg["attestationObject"])),
        },
    }
    kwargs = dict(
        credential=credential,
        expected_challenge=bytes.fromhex(case["challenge"]),
        expected_origin=case["origin"],
        expected_rp_id=case["rpId"],
        require_user_verification=case["requireUV"],
        supported_pub_key_algs=SUPPORTED_ALGS,
    )
    if case["roots"] is not None:
        pems = [pem(x509.load_der_x509_certificate(bytes.fromhex(r))) for r in case["roots"]]
        kwargs["pem_root_certs_bytes_by_fmt"] = {
            AttestationFormat.PACKED: pems,
            AttestationFormat.FIDO_U2F: pems,
        }
    try:
        webauthn.verify_registration_response(**kwargs)
        return "ok"
    except Exception as exc:  # noqa: BLE001 - verdict recorded verbatim
        return err(exc)


def py_verify_authentication(case):
    a = case["authentication"]
    credential = {
        "id": b64url(bytes.fromhex(a["credentialId"])),
        "rawId": b64url(bytes.fromhex(a["credentialId"])),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(bytes.fromhex(a["clientDataJSON"])),
            "authenticatorData": b64url(bytes.fromhex(a["authenticatorData"])),
            "signature": b64url(bytes.fromhex(a["signature"])),
        },
    }
    if a["userHandle"] is not None:
        credential["response"]["userHandle"] = b64url(bytes.fromhex(a["userHandle"]))
    try:
        webauthn.verify_authentication_response(
            credential=credential,
            expected_challenge=bytes.fromhex(case["challenge"]),
            expected_origin=case["origin"],
            expected_rp_id=case["rpId"],
            credential_public_key=bytes.fromhex(a["publicKey"]),
            credential_current_sign_count=a["storedSignCount"],
            require_user_verification=case["requireUV"],
        )
        return "ok"
    except Exception as exc:  # noqa: BLE001 - verdict recorded verbatim
        return err(exc)


# ---------------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------------

def reg_case(pki, name_, *, expect_rp_id=RP_ID, expect_origin=ORIGIN, expect_challenge=None,
             require_uv=False, roots=None, **mint):
    cred_id, cdj, att_obj, challenge = make_registration(pki, **mint)
    case = {
        "name": name_,
        "ceremony": "registration",
        "rpId": expect_rp_id,
        "origin": expect_origin,
        "challenge": (expect_challenge or challenge).hex(),
        "requireUV": require_uv,
        "roots": [der(r).hex() for r in roots] if roots is not None else None,
        "registration": {"clientDataJSON": cdj.hex(), "attestationObject": att_obj.hex()},
    }
    case["py_webauthn"] = py_verify_registration(case, cred_id)
    return case


def auth_case(name_, cred, *, expect_rp_id=RP_ID, expect_origin=ORIGIN, expect_challenge=None,
              require_uv=False, stored_sign_count=4, discoverable=False, **mint):
    cred_id = os.urandom(32)
    user_handle = os.urandom(16)
    cdj, ad, sig, challenge = make_assertion(cred, cred_id, user_handle=user_handle, **mint)
    case = {
        "name": name_,
        "ceremony": "authentication",
        "rpId": expect_rp_id,
        "origin": expect_origin,
        "challenge": (expect_challenge or challenge).hex(),
        "requireUV": require_uv,
        "roots": None,
        "authentication": {
            "credentialId": cred_id.hex(),
            "clientDataJSON": cdj.hex(),
            "authenticatorData": ad.hex(),
            "signature": sig.hex(),
            "userHandle": user_handle.hex(),
            "publicKey": cred.cose.hex(),
            "storedSignCount": stored_sign_count,
            "storedUserHandle": user_handle.hex(),
            "allowCredentials": None if discoverable else [cred_id.hex()],
        },
    }
    case["py_webauthn"] = py_verify_authentication(case)
    return case


def build_cases():
    pki = PKI()
    keys = {alg: CredKey(alg) for alg in ("ES256", "EdDSA", "RS256")}
    es256 = keys["ES256"]
    cases = []

    # ---- positive registrations ----
    for alg in ("ES256", "EdDSA", "RS256"):
        cases.append(reg_case(pki, "registration none %s" % alg, fmt="none", cred=keys[alg]))
    for alg in ("ES256", "EdDSA", "RS256"):
        cases.append(reg_case(pki, "registration packed self %s" % alg, fmt="packed-self",
                              cred=keys[alg]))
    for leaf in ("ES256", "RS256"):
        cases.append(reg_case(pki, "registration packed x5c %s leaf (ES256 credential) trusted root"
                              % leaf, fmt="packed-x5c", cred=es256, x5c_leaf=leaf,
                              roots=[pki.root]))
    cases.append(reg_case(pki, "registration fido-u2f ES256 trusted root", fmt="fido-u2f",
                          cred=es256, flags=UP | AT, roots=[pki.root]))

    # ---- negative registrations ----
    cases.append(reg_case(pki, "registration none ES256 wrong origin", fmt="none", cred=es256,
                          origin=OTHER_ORIGIN))
    cases.append(reg_case(pki, "registration none ES256 wrong rpId", fmt="none", cred=es256,
                          rp_id=OTHER_RP_ID))
    cases.append(reg_case(pki, "registration none ES256 wrong challenge", fmt="none", cred=es256,
                          expect_challenge=os.urandom(32)))
    cases.append(reg_case(pki, "registration packed self ES256 clientDataJSON tampered",
                          fmt="packed-self", cred=es256, extra="aaaa", tamper="clientData"))
    cases.append(reg_case(pki, "registration packed self ES256 authData tampered (signCount)",
                          fmt="packed-self", cred=es256, tamper="authData-signCount"))
    cases.append(reg_case(pki, "registration none ES384 credential not allowed", fmt="none",
                          cred=CredKey("ES384")))
    cases.append(reg_case(pki, "registration packed x5c ES256 leaf untrusted root",
                          fmt="packed-x5c", cred=es256, x5c_leaf="ES256", roots=[pki.other_root]))
    cases.append(reg_case(pki, "registration none ES256 credential ID 1024 bytes", fmt="none",
                          cred=es256, cred_id=os.urandom(1024)))
    cases.append(reg_case(pki, "registration none ES256 requireUV but UV clear", fmt="none",
                          cred=es256, flags=UP | AT, require_uv=True))
    cases.append(reg_case(pki, "registration none ES256 UP clear", fmt="none", cred=es256,
                          flags=UV | AT))
    cases.append(reg_case(pki, "registration none ES256 type webauthn.get", fmt="none",
                          cred=es256, ctype="webauthn.get"))

    # ---- positive authentications ----
    cases.append(auth_case("authentication ES256", es256))
    cases.append(auth_case("authentication EdDSA (discoverable)", keys["EdDSA"],
                           discoverable=True))
    cases.append(auth_case("authentication RS256", keys["RS256"]))

    # ---- negative authentications ----
    cases.append(auth_case("authentication ES256 wrong challenge (replay)", es256,
                           expect_challenge=os.urandom(32)))
    cases.append(auth_case("authentication ES256 counter regression", es256, sign_count=3,
                           stored_sign_count=4))
    cases.append(auth_case("authentication ES256 authData tampered", es256, tamper="authData"))
    cases.append(auth_case("authentication ES256 clientDataJSON tampered", es256, extra="aaaa",
                           tamper="clientData"))
    cases.append(auth_case("authentication ES256 wrong origin", es256, origin=OTHER_ORIGIN))
    cases.append(auth_case("authentication ES256 wrong rpId", es256, rp_id=OTHER_RP_ID))
    cases.append(auth_case("authentication ES256 requireUV but UV clear", es256, flags=UP,
                           require_uv=True))
    return cases


def main():
    cases = build_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    print(json.dumps({"cases": cases}))  # one line: the test reads the last line of its output
    return 0


if __name__ == "__main__":
    sys.exit(main())
