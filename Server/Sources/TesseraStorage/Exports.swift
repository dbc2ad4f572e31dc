// The shared HTTP and storage pieces (the Database protocol, SQLite, migrations, problems, clocks)
// live in TesseraHTTPKit; the storage layer builds on them and shows them to the layers above.
@_exported import TesseraHTTPKit
