// The accounts layer stands on the storage layer (and through it on TesseraHTTPKit) and shows both
// to the layers above: sign-in, operations and the composition root.
@_exported import TesseraStorage
