/// What the server should know of the device (the seed's `NMADeviceInformation`): a display name and,
/// for push notifications, a push token.
public struct DeviceInformation: Sendable, Equatable, Codable {
    /// The device's display name.
    public var name: String
    /// The push token (FCM or APNs), if any.
    public var pushToken: String?

    /// Creates device information.
    /// - Parameters:
    ///   - name: The device's display name.
    ///   - pushToken: The push token, if any.
    public init(name: String, pushToken: String? = nil) {
        self.name = name
        self.pushToken = pushToken
    }

    /// Creates device information with the seed's label for the push token.
    /// - Parameters:
    ///   - name: The device's display name.
    ///   - fcmRegistrationToken: The Firebase Cloud Messaging registration token.
    public init(name: String, fcmRegistrationToken: String?) {
        self.init(name: name, pushToken: fcmRegistrationToken)
    }
}
