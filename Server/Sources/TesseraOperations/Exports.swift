// The operations layer (webhooks, admin, console, metrics) stands on the sign-in layer and, through
// it, on accounts and storage; only the composition root is above it.
@_exported import TesseraSignIn
