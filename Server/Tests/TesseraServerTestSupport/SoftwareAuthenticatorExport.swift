/// The software authenticator (a test double) lives in its own target so that the benchmark's load generator
/// can use it too; the tests get it with this support target.
@_exported import TesseraSoftwareAuthenticator
