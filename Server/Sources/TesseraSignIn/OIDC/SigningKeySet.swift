import Foundation
import JWTKit
import TesseraCore

/// The public signing keys of a JWK Set document that another party registered (a client's keys for
/// `private_key_jwt` and `login_hint_token`, an identity server's keys for the CIBA authentication channel).
package enum SigningKeySet {
    /// The largest document taken.
    package static let limit = 64 * 1024
    /// The algorithms used; keys announcing another (Keycloak's RSA-OAEP encryption key) are passed over.
    package static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    /// The keys for signatures (`use` absent or `sig`) with a `kid` and an asymmetric algorithm jwt-kit verifies
    /// (at most 50); 1005 naming `field` when the document is no JWK Set or holds no such key.
    package static func keys(_ jwks: String, field: String = "jwks") async throws -> JWTKeyCollection {
        guard jwks.utf8.count <= limit, let document = try? JSONSerialization.jsonObject(with: Data(jwks.utf8)) as? [String: Any],
              let entries = document["keys"] as? [[String: Any]]
        else { throw AppError.invalidField(field, "\(field) must be a JWK Set document ({\"keys\": [...]}) of at most 64 KiB") }
        let keys = JWTKeyCollection()
        var added = 0
        for entry in entries.prefix(50) {
            // The algorithm the key is for: its `alg`, else the one its type implies. Given to jwt-kit, it makes the key at
            // once, so a key that is no key (a point off the curve, a short modulus) is passed over here, not at a sign-in.
            guard (entry["use"] as? String ?? "sig") == "sig", entry["kid"] is String, entry["d"] == nil,
                  let algorithm = (entry["alg"] as? String) ?? implied(entry), algorithms.contains(algorithm)
            else { continue }
            var pinned = entry
            pinned["alg"] = algorithm
            guard let data = try? JSONSerialization.data(withJSONObject: pinned), let jwk = try? JSONDecoder().decode(JWK.self, from: data),
                  (try? await keys.add(jwk: jwk)) != nil
            else { continue }
            added += 1
        }
        guard added > 0 else { throw AppError.invalidField(field, "\(field) holds no public signing key with a kid (RSA, EC or OKP)") }
        return keys
    }

    /// The algorithm a JWK without `alg` is taken for: RS256 for RSA, ES256/384/512 for the P curves, EdDSA for Ed25519.
    static func implied(_ entry: [String: Any]) -> String? {
        switch (entry["kty"] as? String, entry["crv"] as? String) {
        case ("RSA", _): "RS256"
        case ("EC", "P-256"): "ES256"
        case ("EC", "P-384"): "ES384"
        case ("EC", "P-521"): "ES512"
        case ("OKP", "Ed25519"): "EdDSA"
        default: nil
        }
    }
}
