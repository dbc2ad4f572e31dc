#if canImport(SwiftUI) && canImport(LocalAuthentication)
import SwiftUI

/// The sample's one screen: sign-up, login with Face ID and its progress.
public struct SampleRootView: View {
    @State private var model: SampleModel
    @State private var email = ""
    @State private var code = ""

    /// Creates the view over `model`.
    public init(model: SampleModel) { _model = State(initialValue: model) }

    public var body: some View {
        Form {
            Section("Sign up") {
                TextField("E-mail", text: $email)
                Button("Send code") { Task { await model.sendCode(to: email) } }
                TextField("Code", text: $code)
                Button("Sign up with Face ID") { Task { await model.signUp(email: email, code: code, name: email, pushToken: "") } }
            }
            Section("Log in") {
                Button("Log in with Face ID") { Task { await model.logIn() } }
                ForEach(model.progress, id: \.self) { Text($0) }
            }
            Text(model.status)
        }
    }
}
#endif
