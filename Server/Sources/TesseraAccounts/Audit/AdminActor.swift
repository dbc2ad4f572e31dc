/// Who an admin API call is made by, for ``AdminAuditMiddleware``'s `admin.*` events: `admin` (the
/// bearer token), or `admin:console` while a call authorised by an admin console session runs.
package enum AdminActor {
    @TaskLocal package static var current = "admin"
}
