/// The devices' repository as the signed routes' key lookup: each key comes with its device's user
/// and client, which the request context then carries typed (``TesseraContext/signedDevice``).
package struct DeviceSigningKeys: DeviceKeyLookup {
    package let devices: any DeviceRepository

    package init(devices: any DeviceRepository) {
        self.devices = devices
    }

    package func signingKey(for keyId: String) async throws -> DeviceSigningKey<DeviceAuthTarget?>? {
        try await devices.signingKey(for: keyId)
    }
}
