"""Verifies a Tessera result token with a third-party JWT library (PyPI: PyJWT with cryptography),
fetching the keys from the server's JWKS.

    python jwt_verify.py <jwks-url> <audience> <issuer> <token>

Prints the verified claims as JSON; exits 1 if the token does not verify.
"""
import json
import sys

import jwt

url, audience, issuer, token = sys.argv[1:5]
try:
    key = jwt.PyJWKClient(url).get_signing_key_from_jwt(token)
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(
        token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer,
        options={"require": ["exp", "iat", "sub", "aud", "iss", "jti"]},
    )
except Exception as error:  # any failure is a refusal
    print(f"refused: {type(error).__name__}: {error}")
    sys.exit(1)
print(json.dumps({"kid": header.get("kid"), "alg": header.get("alg"), "claims": claims}, sort_keys=True))
