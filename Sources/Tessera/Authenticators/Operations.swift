/// The authenticator operations of a client, as the seed reaches them (`client.operations.registration`).
public struct Operations: Sendable {
    let client: TesseraClient

    /// A new ``Registration`` (the seed's `NMAOperations.registration`).
    public var registration: Registration { client.registration() }
    /// A new ``Authentication`` (the seed family's `NMAOperations.authentication`).
    public var authentication: Authentication { Authentication(client: client) }
}
