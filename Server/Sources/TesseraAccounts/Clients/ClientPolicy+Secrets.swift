import TesseraCore

extension ClientPolicy {
    /// Refuses a PIN that breaks this client's rules (7202), naming the request member.
    package func enforce(pin: String, field: String = "pin") throws {
        if let violation = self.pin.violation(of: pin) {
            throw AppError.pinPolicyViolation(violation, field: field)
        }
    }

    /// Refuses a password that breaks this client's rules (7203), naming the request member.
    package func enforce(password: String, field: String = "password") throws {
        if let violation = self.password.violation(of: password) {
            throw AppError.passwordPolicyViolation(violation, field: field)
        }
    }

    /// The secret a device's local authentication is set up with at sign-up or re-registration:
    /// `PIN` needs `pin`, `PASSWORD` needs `password`, each within this client's rules; other
    /// types take neither. The secret is checked here and then forgotten: never stored or logged.
    package func enforceLocalSecret(authType: String, pin: String?, password: String?) throws {
        switch authType {
        case "PIN":
            guard let pin else { throw AppError.fieldMissing("pin", "A PIN device needs pin, to check it against this app's rules") }
            guard password == nil else { throw AppError.invalidField("password", "authType PIN takes pin, not password") }
            try enforce(pin: pin)
        case "PASSWORD":
            guard let password else {
                throw AppError.fieldMissing("password", "A PASSWORD device needs password, to check it against this app's rules")
            }
            guard pin == nil else { throw AppError.invalidField("pin", "authType PASSWORD takes password, not pin") }
            try enforce(password: password)
        default:
            guard pin == nil, password == nil else {
                throw AppError.invalidField(pin != nil ? "pin" : "password", "only authType PIN and PASSWORD take a secret")
            }
        }
    }
}
