import Foundation
import TesseraCore

extension TesseraClient {
    /// The passkeys of this device's user at this app (`GET /v1/devices/passkeys`, signed by the device key),
    /// oldest first: the ones the user added on the hosted sign-in page or anywhere else for this client.
    /// - Throws: ``TesseraError`` (``ErrorCode/deviceUnknown`` when the device is not registered).
    public func listPasskeys() async throws -> [PasskeyInfo] {
        let list: PasskeyList = try await call("GET", "/v1/devices/passkeys", signedBy: try signingDeviceId())
        return list.passkeys
    }

    /// Renames one of the user's passkeys (`PATCH /v1/devices/passkeys/{id}`, signed).
    /// - Parameters:
    ///   - id: The passkey's ID (`pk_…`), from ``listPasskeys()``.
    ///   - name: The new name: 1 to 64 characters, no control characters (``ErrorCode/fieldInvalid`` otherwise).
    /// - Returns: The passkey as it is now.
    /// - Throws: ``TesseraError`` (``ErrorCode/passkeyUnknown`` for a passkey that is not the user's or is revoked).
    public func renamePasskey(id: String, name: String) async throws -> PasskeyInfo {
        try await call("PATCH", "/v1/devices/passkeys/\(try Self.passkeyPath(id))", body: ["name": name], signedBy: try signingDeviceId())
    }

    /// Deletes (revokes) one of the user's passkeys (`DELETE /v1/devices/passkeys/{id}`, signed): it signs in no
    /// more, and the verifier nodes are told. The credential stays in the authenticator until the user removes it there.
    /// - Parameter id: The passkey's ID (`pk_…`), from ``listPasskeys()``.
    /// - Throws: ``TesseraError`` (``ErrorCode/passkeyUnknown`` for a passkey that is not the user's or is revoked already).
    public func deletePasskey(id: String) async throws {
        let _: NoContent = try await call("DELETE", "/v1/devices/passkeys/\(try Self.passkeyPath(id))", signedBy: try signingDeviceId())
    }

    /// The ID as a path segment: letters, digits, `_` and `-` only.
    static func passkeyPath(_ id: String) throws -> String {
        guard !id.isEmpty, id.count <= 100, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw TesseraError(code: .passkeyUnknown, message: "No passkey \(id)")
        }
        return id
    }
}
