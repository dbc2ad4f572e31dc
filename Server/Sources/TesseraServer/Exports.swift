// The shared HTTP and storage pieces (problems, JSON bodies, signed requests, SQLite, migrations)
// live in TesseraHTTPKit, which the verifier node uses too; the server's users see them through it.
@_exported import TesseraHTTPKit
