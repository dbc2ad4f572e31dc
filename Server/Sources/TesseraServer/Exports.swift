// The composition root stands on every layer below it: operations, which shows sign-in, accounts,
// storage and TesseraHTTPKit (the HTTP and SQLite pieces the verifier node shares). The server's users
// see all of them through it.
@_exported import TesseraOperations
