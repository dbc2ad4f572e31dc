import TesseraCore

/// Message text per purpose and channel. `{{code}}` and `{{minutes}}` are replaced.
public struct MessageTemplates: Sendable {
    public struct Template: Sendable {
        public var subject: String
        public var body: String
        public var sms: String
    }

    public var signup = Template(
        subject: "Your sign-up code: {{code}}",
        body: "Your verification code is {{code}}.\n\nIt is valid for {{minutes}} minutes. If you did not ask for it, ignore this message.\n",
        sms: "Your verification code is {{code}}. Valid for {{minutes}} min."
    )
    public var recovery = Template(
        subject: "Your account recovery code: {{code}}",
        body: "Your account recovery code is {{code}}.\n\nIt is valid for {{minutes}} minutes. If you did not ask to move your account to a new device, do not share it with anyone.\n",
        sms: "Your account recovery code is {{code}}. Valid for {{minutes}} min. Never share it."
    )

    public init() {}

    func render(purpose: OTPPurpose, channel: OTPChannel, code: String, lifetime: Duration) -> (subject: String, body: String) {
        let template = purpose == .signup ? signup : recovery
        let minutes = String(max(1, Int(lifetime.components.seconds / 60)))
        func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{{code}}", with: code).replacingOccurrences(of: "{{minutes}}", with: minutes)
        }
        switch channel {
        case .email: return (fill(template.subject), fill(template.body))
        case .sms: return ("", fill(template.sms))
        }
    }
}
