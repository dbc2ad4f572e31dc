// The shared HTTP and storage pieces (problems, JSON bodies, signed requests, SQLite, migrations)
// live in TesseraHTTPKit, which the verifier node uses too; the server's storage layer (PostgreSQL,
// delivery queues, counters, secrets) in TesseraStorage. The server's users see both through it.
@_exported import TesseraHTTPKit
@_exported import TesseraStorage
