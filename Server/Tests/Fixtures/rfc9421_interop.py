"""RFC 9421 interop with a reference implementation (PyPI: http-message-signatures).

    python rfc9421_interop.py verify < request.json   # checks a request Tessera signed; prints "verified"
    python rfc9421_interop.py sign   < request.json   # signs a request; prints the headers as JSON

request.json: {"method", "url", "body", "keyid", "public_key_pem" | "private_key_pem", "nonce"}
"""
import datetime
import json
import sys

import requests
from http_message_signatures import HTTPMessageSigner, HTTPMessageVerifier, MappingKeyResolver, algorithms

mode = sys.argv[1]
spec = json.load(sys.stdin)
request = requests.Request(spec["method"], spec["url"], data=spec["body"].encode(), headers=spec.get("headers", {})).prepare()

if mode == "verify":
    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ECDSA_P256_SHA256,
        key_resolver=MappingKeyResolver(public_keys={spec["keyid"]: spec["public_key_pem"].encode()}, private_keys={}),
    )
    results = verifier.verify(request, require_components=("@method", "@path", "content-digest"), body=spec["body"].encode(),
                              max_age=datetime.timedelta(minutes=5))
    assert len(results) == 1 and results[0].parameters["keyid"] == spec["keyid"], results
    print("verified")
elif mode == "sign":
    signer = HTTPMessageSigner(
        signature_algorithm=algorithms.ECDSA_P256_SHA256,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys={spec["keyid"]: spec["private_key_pem"].encode()}),
    )
    signer.sign(request, key_id=spec["keyid"], nonce=spec["nonce"], label="tessera",
                covered_component_ids=("@method", "@path", "content-digest"), body=spec["body"].encode())
    print(json.dumps({k: request.headers[k] for k in ("Content-Digest", "Signature-Input", "Signature")}))
else:
    sys.exit("mode must be verify or sign")
