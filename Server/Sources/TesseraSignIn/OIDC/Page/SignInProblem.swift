import TesseraCore

/// Why the hosted page cannot go on, said in the page's language.
package enum SignInProblem: Sendable, Equatable {
    /// The `client_id` names no enabled client.
    case unknownApplication
    /// The `redirect_uri` is not registered for the client: the error is shown, never redirected.
    case unregisteredRedirect
    /// The `post_logout_redirect_uri` is not registered for the client.
    case unregisteredLogoutRedirect
    /// A sign-out confirmation without the browser's cookie.
    case needsCookies
    /// Anything else the application did wrong; `detail` is for its developers (English).
    case invalid(String)

    /// The text of the problem in `strings`' language.
    package func text(_ strings: SignInStrings) -> String {
        switch self {
        case .unknownApplication: strings.unknownApplication
        case .unregisteredRedirect: strings.unregisteredRedirect
        case .unregisteredLogoutRedirect: strings.unregisteredLogoutRedirect
        case .needsCookies: strings.needsCookies
        case .invalid(let detail): SignInStrings.fill(strings.invalidRequest, detail: detail)
        }
    }

    /// The text of an error of the page's own steps (identify, cancel, …) in `strings`' language.
    package static func text(of error: AppError, _ strings: SignInStrings) -> String {
        switch error.code {
        case .oidcAuthorizationUnknown: strings.startAgain
        case .oidcRateLimited: strings.rateLimited
        case .fieldInvalid where error.field == "identifier": strings.enterIdentifier
        case .unsupportedMediaType: strings.sendAsForm
        default: SignInStrings.fill(strings.invalidRequest, detail: error.detail ?? error.title)
        }
    }
}
