import TesseraHTTPKit

/// One domain's share of a schema version: statements that run, in this order, inside that version's
/// migration. Each domain declares its parts beside its code (`Devices/DevicesMigrations.swift`…);
/// ``Migrator/all`` orders them into the versions.
package struct MigrationPart: Sendable {
    /// The schema version this part belongs to.
    package let version: Int
    /// The statements, run in order within the version's transaction.
    package let statements: [String]

    /// A part of `version` running `statements`.
    package init(version: Int, statements: [String]) {
        self.version = version
        self.statements = statements
    }
}

extension Migration {
    /// A version made of the domains' parts, their statements in the order the parts are listed.
    package init(version: Int, name: String, parts: [MigrationPart]) {
        precondition(parts.allSatisfy { $0.version == version }, "migration \(version) lists a part of another version")
        self.init(version: version, name: name, statements: parts.flatMap(\.statements))
    }
}
