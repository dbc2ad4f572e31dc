/// The tables of Users/ (users), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum UsersMigrations {
    /// Version 3: the users (`users`), one key, e-mail and phone each per client.
    package static let users = MigrationPart(version: 3, statements: [
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_key TEXT NOT NULL,
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            phone TEXT NOT NULL,
            local_auth_type TEXT NOT NULL,
            agreed_at BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            CONSTRAINT users_user_key_unique UNIQUE (client_id, user_key),
            CONSTRAINT users_email_unique UNIQUE (client_id, email),
            CONSTRAINT users_phone_unique UNIQUE (client_id, phone)
        )
        """,
    ])

    /// Version 5: passwords: the hash and the lockout after failures.
    package static let passwords = MigrationPart(version: 5, statements: [
        "ALTER TABLE users ADD COLUMN password_hash TEXT",
        "ALTER TABLE users ADD COLUMN password_failures INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN password_locked_until BIGINT",
    ])
}
