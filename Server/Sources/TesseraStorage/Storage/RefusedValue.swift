import PostgresNIO

/// The last line of defence against values PostgreSQL refuses as data, which SQLite would store:
/// text it cannot encode (SQLSTATE 22021 `character_not_in_repertoire`, for example U+0000; 22P05
/// `untranslatable_character`), text too long for its column (22001) and numbers out of range
/// (22003). They come from a request, so they answer 400 (1005) instead of 500. The request layer
/// refuses U+0000 first, naming the field (``TextCheck``); this catches what it could not name.
package enum RefusedValue {
    package static let sqlStates: Set<String> = ["22021", "22P05", "22001", "22003"]

    /// The problem for `error` if it is such a refusal, else `nil`.
    package static func problem(for error: any Error) -> AppError? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState], sqlStates.contains(state) else { return nil }
        return AppError.invalidField(nil, "A value of this request cannot be stored (SQLSTATE \(state))")
    }
}
