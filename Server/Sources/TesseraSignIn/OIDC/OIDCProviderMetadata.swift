import Foundation

/// OpenID Provider Metadata (OIDC Discovery 1.0 §3).
package struct OIDCProviderMetadata: Codable, Sendable {
    package var issuer: String
    package var authorizationEndpoint: String
    package var tokenEndpoint: String
    package var userinfoEndpoint: String
    package var jwksUri: String
    package var revocationEndpoint: String
    package var introspectionEndpoint: String
    /// RP-Initiated Logout 1.0 §2.1.
    package var endSessionEndpoint: String
    package var responseTypesSupported = ["code"]
    package var grantTypesSupported = ["authorization_code", "refresh_token", CIBAService.grantType]
    package var subjectTypesSupported = ["public"]
    package var idTokenSigningAlgValuesSupported = SigningAlgorithm.allCases.map(\.rawValue)
    package var responseModesSupported = ["query"]
    package var scopesSupported = Self.knownScopes
    package var tokenEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
    package var tokenEndpointAuthSigningAlgValuesSupported = ["RS256", "PS256", "ES256", "EdDSA"]
    package var revocationEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post"]
    package var introspectionEndpointAuthMethodsSupported = ["client_secret_basic", "client_secret_post"]
    package var codeChallengeMethodsSupported = ["S256"]
    package var claimsSupported = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "azp", "at_hash", "email", "name", "phone_number", "sid", "nodes"]
    package var promptValuesSupported = OIDCService.promptValues.sorted()
    /// OIDC Discovery §3: without these, `request_uri_parameter_supported` would default to true.
    package var requestParameterSupported = false
    package var requestUriParameterSupported = false
    package var claimsParameterSupported = false
    /// Back-Channel Logout 1.0 §2.1: logout tokens are sent, with the `sid` (also in the ID token).
    package var backchannelLogoutSupported = true
    package var backchannelLogoutSessionSupported = true
    /// The hosted page's languages (Discovery §3), chosen by `ui_locales`, else `Accept-Language`.
    package var uiLocalesSupported = SignInStrings.all.map(\.language)
    /// CIBA Core 1.0 §4: the backchannel authentication endpoint, in poll and ping mode, without `user_code`.
    package var backchannelAuthenticationEndpoint: String
    package var backchannelTokenDeliveryModesSupported = ["poll", "ping", "push"]
    package var backchannelUserCodeParameterSupported = true

    /// The scopes Tessera knows.
    package static let knownScopes = ["openid", "email", "profile", "phone", "offline_access"]

    package enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint", tokenEndpoint = "token_endpoint", userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint", introspectionEndpoint = "introspection_endpoint"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case jwksUri = "jwks_uri", responseTypesSupported = "response_types_supported", grantTypesSupported = "grant_types_supported"
        case subjectTypesSupported = "subject_types_supported", idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case scopesSupported = "scopes_supported", tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported", claimsSupported = "claims_supported"
        case responseModesSupported = "response_modes_supported", promptValuesSupported = "prompt_values_supported"
        case requestParameterSupported = "request_parameter_supported", requestUriParameterSupported = "request_uri_parameter_supported"
        case claimsParameterSupported = "claims_parameter_supported", endSessionEndpoint = "end_session_endpoint"
        case backchannelLogoutSupported = "backchannel_logout_supported", backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case uiLocalesSupported = "ui_locales_supported"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
    }

    /// The metadata of the provider at `issuer`.
    package init(issuer: String) {
        self.issuer = issuer
        authorizationEndpoint = issuer + "/oauth2/authorize"
        tokenEndpoint = issuer + "/oauth2/token"
        userinfoEndpoint = issuer + "/oauth2/userinfo"
        jwksUri = issuer + "/.well-known/jwks.json"
        revocationEndpoint = issuer + "/oauth2/revoke"
        introspectionEndpoint = issuer + "/oauth2/introspect"
        endSessionEndpoint = issuer + "/oauth2/logout"
        backchannelAuthenticationEndpoint = issuer + "/oauth2/bc-authorize"
    }
}
