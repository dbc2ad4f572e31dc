import Foundation

/// The hosted sign-in page's words in one language: one catalogue per language
/// (`SignInStrings+English.swift`, `+German.swift`, `+Korean.swift`). Every field must be given, so a
/// catalogue that lacks a string does not compile. `{name}` and `{detail}` are filled in by the page.
package struct SignInStrings: Sendable {
    /// The BCP 47 language tag of the catalogue (`<html lang>`).
    package let language: String
    package let documentTitle: String
    /// `{name}`: the application's display name.
    package let signInTo: String
    package let identifierLabel: String
    package let continueButton: String
    package let cancel: String
    package let notYou: String
    /// The passkey button, and what the page says when a passkey sign-in did not work: cancelled or
    /// timed out (`NotAllowedError`), a passkey Tessera does not know, anything else.
    package let passkeyButton: String
    package let passkeyCancelled: String
    package let passkeyUnknown: String
    package let passkeyFailed: String
    /// The offer after a phone-approved sign-in: its title and text (`{name}`: the app), its buttons, and
    /// what the page says after the attempt: added, this device holds one already (`InvalidStateError`),
    /// cancelled (`NotAllowedError`), anything else.
    package let offerTitle: String
    package let offerText: String
    package let offerAdd: String
    package let offerSkip: String
    package let offerAdded: String
    package let offerExists: String
    package let offerCancelled: String
    package let offerFailed: String
    /// The status line, by `OIDCService.Progress` value.
    package let waiting: String
    package let verifying: String
    package let approved: String
    package let declined: String
    package let expired: String
    package let cancelled: String
    package let failed: String
    package let mismatch: String
    /// The status line while the verifier nodes work (the quorum's step names).
    package let stepSelectNodes: String
    package let stepCompleteVerification: String
    /// The three steps of the progress list: asked on the phone, the nodes verify, signed in.
    package let progressLabel: String
    package let progressPhone: String
    package let progressNodes: String
    package let progressDone: String
    /// Number matching: the words before and after the number.
    package let tapBefore: String
    package let tapAfter: String
    /// `{name}`.
    package let backTo: String
    package let continueOnceApproved: String
    package let goingBack: String
    /// `{name}`, and without a name.
    package let signOutOf: String
    package let signOutQuestion: String
    package let signOutExplanation: String
    package let signOutButton: String
    package let signedOutTitle: String
    package let signedOutText: String
    package let cannotSignIn: String
    package let cannotSignOut: String
    package let notSignedInYet: String
    package let notApprovedYet: String
    package let unknownApplication: String
    package let unregisteredRedirect: String
    package let unregisteredLogoutRedirect: String
    package let needsCookies: String
    package let sendAsForm: String
    package let startAgain: String
    package let rateLimited: String
    package let enterIdentifier: String
    /// `{detail}`: the technical reason, in English, for the application's developers.
    package let invalidRequest: String
    package let securedBy: String

    /// The catalogues, English first (the default).
    package static let all: [SignInStrings] = [.english, .german, .korean]

    /// The catalogue of a BCP 47 tag's primary language (`de-AT` → German), nil if there is none.
    package static func catalogue(_ tag: some StringProtocol) -> SignInStrings? {
        let primary = tag.split(separator: "-", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return all.first { $0.language == primary }
    }

    /// The language of the page: the first of the request's `ui_locales` (OIDC Core §3.1.2.1, in order of
    /// preference) that has a catalogue, else the browser's `Accept-Language` (RFC 9110 §12.5.4, by
    /// weight), else English.
    package static func negotiate(uiLocales: String?, acceptLanguage: String?) -> SignInStrings {
        if let chosen = uiLocales.flatMap(preferred) { return chosen }
        return acceptLanguage.flatMap(accepted) ?? .english
    }

    /// The first tag of a space-separated `ui_locales` list that has a catalogue.
    package static func preferred(_ uiLocales: String) -> SignInStrings? {
        uiLocales.split(separator: " ").prefix(20).lazy.compactMap(catalogue).first
    }

    /// The `Accept-Language` range of the highest weight that has a catalogue (`*` is English); a range
    /// of weight 0 is refused.
    package static func accepted(_ header: String) -> SignInStrings? {
        var ranges: [(tag: Substring, weight: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").prefix(40).enumerated() {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = fields.first, !tag.isEmpty else { continue }
            var weight = 1.0
            for field in fields.dropFirst() where field.lowercased().hasPrefix("q=") {
                weight = Double(field.dropFirst(2)) ?? 0
            }
            if weight > 0 { ranges.append((Substring(tag), min(weight, 1), order)) }
        }
        for range in ranges.sorted(by: { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }) {
            if range.tag == "*" { return .english }
            if let found = catalogue(range.tag) { return found }
        }
        return nil
    }

    /// `template` with `{name}` and `{detail}` filled in.
    package static func fill(_ template: String, name: String = "", detail: String = "") -> String {
        template.replacingOccurrences(of: "{name}", with: name).replacingOccurrences(of: "{detail}", with: detail)
    }
}
