/// The admin console's files, compiled into the server (no build step, no third-party assets, nothing
/// read from disk): one HTML page, one stylesheet and plain ES modules, one module a page. Each file
/// is a constant in its own `ConsoleAssets+<Name>.swift`. A new console page is a module
/// `page-<id>.js` (exporting `render(view, params)`) here and one entry in `pages` in `app.js`.
enum ConsoleAssets {
    /// A file and its media type.
    struct Asset: Sendable {
        let contentType: String
        let body: String

        init(html: String) {
            contentType = "text/html; charset=utf-8"
            body = html
        }

        init(css: String) {
            contentType = "text/css; charset=utf-8"
            body = css
        }

        init(javaScript: String) {
            contentType = "text/javascript; charset=utf-8"
            body = javaScript
        }
    }

    /// The files under `/admin/`, by name.
    static let files: [String: Asset] = [
        "console.css": style,
        "app.js": app,
        "api.js": api,
        "ui.js": ui,
        "picker.js": picker,
        "page-clients.js": pageClients,
        "page-users.js": pageUsers,
        "page-sessions.js": pageSessions,
        "page-nodes.js": pageNodes,
        "page-keys.js": pageKeys,
        "page-audit.js": pageAudit,
        "page-live.js": pageLive,
        "page-webhooks.js": pageWebhooks,
    ]
}
