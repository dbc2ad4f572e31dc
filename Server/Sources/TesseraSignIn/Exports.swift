// The sign-in layer stands on the accounts layer (clients, users, devices, sessions, proofing,
// flows, courier, audit) and shows it to the layers above: operations and the composition root.
@_exported import TesseraAccounts
